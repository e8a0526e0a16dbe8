// SPDX-License-Identifier: MIT
/* The keys the project's examples print (example_keys.h). */
#include "example_keys.h"

#include <stddef.h>
#include <string.h>

static const char *const example_keys[] = {
	/* conf/router.conf and docs/configuration.md: the router's private key, its preshared key */
	"NLiu8cv/8uVLjYGOzG8Zzusb0JjlzjqIuoRTTM1tc5E=",
	"SlKqgw7moLqbh2ENDlXpdF6ENi1iJFNb2h10KvoqGEI=",
	/* conf/vps.conf: the server's private key, a second peer's public and preshared keys */
	"oOie4hEecLiQzpaq2IPOFYlmdJGd7OH1HDqo4tIIqSQ=",
	"kisi/jZ+hfLdSSINZ2vEoZ0Q3/XAmMneByDjELHAiV8=",
	"gFbNha83SUAHNWnUTwwpTFBF4QOZgNKNb5fQ6547Ksc=",
	/* the public keys of the server and of the router (their private halves are above) */
	"dBf/y+muaMJIvHWXGB89Z4XL05hSi9L+QEVTcahWAik=",
	"/lrW/2XHChqRjCUUosV4vU/rd3yJ3Bfgr8M4zSp63iY=",
	/* docs/cli.md's sample output */
	"RKNSVDV+BhR0oCQXVhKhPPtabKh5wnPYaH0sKvaOdnM=",
	"EqdRyks/DBUUX3NgYOkto0ItO5+JbMjkTf686RO8HmE=",
};

bool wb_key_is_example(const uint8_t key[WB_KEY_LEN])
{
	uint8_t example[WB_KEY_LEN];

	for (size_t i = 0; i < sizeof(example_keys) / sizeof(example_keys[0]); i++)
		if (!wb_key_from_base64(example, example_keys[i]) && !memcmp(example, key, WB_KEY_LEN))
			return true;
	return false;
}
