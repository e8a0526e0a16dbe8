// SPDX-License-Identifier: MIT
#include "keypair.h"

#include <errno.h>
#include <stdlib.h>

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
	kp->peer_caps = k->remote_caps;
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

int wb_keypair_seal(struct wb_keypair *kp, uint8_t uplink, uint64_t counter, uint8_t *buf, size_t body_len)
{
	uint8_t nonce[WB_NONCE_LEN], *body = buf + WB_DATA_HEADER_LEN;
	int rc;

	if (uplink >= WB_MAX_UPLINKS)
		return -EINVAL;
	if (counter >= WB_REJECT_AFTER_MESSAGES)
		return -ENOSPC;
	wb_data_put_header(buf, uplink, kp->remote_index, counter);
	wb_data_nonce(nonce, uplink, counter);
	rc = wb_aead_seal(kp->send, nonce, buf, WB_DATA_HEADER_LEN, body, body_len, body);
	if (rc)
		return rc;
	kp->sealed++;
	return (int)(WB_DATA_OVERHEAD + body_len);
}

int wb_keypair_open(struct wb_keypair *kp, uint8_t *buf, size_t len)
{
	uint8_t nonce[WB_NONCE_LEN], *body = buf + WB_DATA_HEADER_LEN;
	uint8_t uplink;
	uint64_t counter;

	if (len < WB_DATA_OVERHEAD)
		return -EBADMSG;
	uplink = wb_data_uplink(buf);
	if (uplink >= WB_MAX_UPLINKS)
		return -EBADMSG;
	counter = wb_data_counter(buf);
	/* Cheap refusal of an old counter before the AEAD; the accept below is the real check. */
	if (!wb_replay_check(&kp->replay[uplink], counter))
		return -EALREADY;
	wb_data_nonce(nonce, uplink, counter);
	if (wb_aead_open(kp->recv, nonce, buf, WB_DATA_HEADER_LEN, body, len - WB_DATA_HEADER_LEN, body))
		return -EBADMSG;
	if (!wb_replay_accept(&kp->replay[uplink], counter))
		return -EALREADY;
	kp->opened++;
	return (int)(len - WB_DATA_OVERHEAD);
}
