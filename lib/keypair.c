// SPDX-License-Identifier: MIT
#include "keypair.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "byteorder.h"

struct wb_keypair *wb_keypair_new(enum wb_cipher c, const struct wb_noise_keys *k, uint64_t now)
{
	struct wb_keypair *kp = calloc(1, sizeof(*kp));

	if (!kp)
		return NULL;
	kp->send = wb_aead_new(c, k->send);
	kp->recv = wb_aead_new(c, k->recv);
	if (!kp->send || !kp->recv) {
		wb_keypair_free(kp);
		return NULL;
	}
	kp->local_index = k->local_index;
	kp->remote_index = k->remote_index;
	kp->initiator = k->initiator;
	kp->peer_incarnation = k->remote_incarnation;
	kp->born_ns = now;
	for (int i = 0; i < WB_MAX_UPLINKS; i++)
		wb_replay_init(&kp->replay[i]);
	return kp;
}

void wb_keypair_free(struct wb_keypair *kp)
{
	if (!kp)
		return;
	wb_aead_free(kp->send);
	wb_aead_free(kp->recv);
	free(kp);
}

/* The nonce: the uplink id, then that uplink's counter. Unique per key. */
static void data_nonce(uint8_t nonce[WB_NONCE_LEN], uint8_t uplink, uint64_t counter)
{
	wb_put_le32(nonce, uplink);
	wb_put_le64(nonce + 4, counter);
}

uint64_t wb_data_counter(const uint8_t *buf)
{
	return wb_get_le64(buf + 8);
}

int wb_keypair_seal(struct wb_keypair *kp, uint8_t uplink, uint64_t counter, uint8_t *buf, size_t body_len)
{
	uint8_t nonce[WB_NONCE_LEN];
	int rc;

	if (uplink >= WB_MAX_UPLINKS)
		return -EINVAL;
	if (counter >= WB_REJECT_AFTER_MESSAGES)
		return -ENOSPC;
	buf[0] = WB_MSG_DATA;
	buf[1] = uplink;
	buf[2] = buf[3] = 0;
	wb_put_le32(buf + 4, kp->remote_index);
	wb_put_le64(buf + 8, counter);
	data_nonce(nonce, uplink, counter);
	rc = wb_aead_seal(kp->send, nonce, buf, sizeof(struct wb_msg_data), buf + sizeof(struct wb_msg_data),
			  body_len, buf + sizeof(struct wb_msg_data));
	if (rc)
		return rc;
	kp->sealed++;
	return (int)(sizeof(struct wb_msg_data) + body_len + WB_TAG_LEN);
}

int wb_keypair_open(struct wb_keypair *kp, uint8_t *buf, size_t len)
{
	const size_t hdr = sizeof(struct wb_msg_data);
	uint8_t nonce[WB_NONCE_LEN], uplink = buf[1];
	uint64_t counter;

	if (len < hdr + WB_TAG_LEN || uplink >= WB_MAX_UPLINKS)
		return -EBADMSG;
	counter = wb_get_le64(buf + 8);
	/* Cheap refusal of an old counter before the AEAD; the accept below is the real check. */
	if (!wb_replay_check(&kp->replay[uplink], counter))
		return -EALREADY;
	data_nonce(nonce, uplink, counter);
	if (wb_aead_open(kp->recv, nonce, buf, hdr, buf + hdr, len - hdr, buf + hdr))
		return -EBADMSG;
	if (!wb_replay_accept(&kp->replay[uplink], counter))
		return -EALREADY;
	kp->opened++;
	return (int)(len - hdr - WB_TAG_LEN);
}
