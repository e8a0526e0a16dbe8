# shellcheck shell=bash
# The scheduler benchmark's scenarios (docs/scheduler.md), sourced by its
# simulator half and its namespace half so that both run the same ones.

SCHED_SCENARIOS="S1 S2 S3 S4 S5 S6 S7a S7b S7c S8"
SCHED_TRACE=${SCHED_TRACE:-tests/traces/TMobile-LTE-short}

# sched_uplink SC K: uplink K (1 or 2) of scenario SC as "NAME ROLE RATE
# WORDS...": ROLE is "active" or "backup", RATE in Mbit/s or "trace" (a
# trace-driven uplink, its trace in WORDS), WORDS linkem's other parameters.
sched_uplink() {
	case $1-$2 in
	S1-1 | S7a-1) echo "fast active 400 delay 10ms limit 40ms" ;;
	S1-2 | S7a-2) echo "slow active 15 delay 120ms limit 120ms" ;;
	S2-1 | S7b-1) echo "fast active 40 delay 10ms limit 40ms" ;;
	S2-2 | S7b-2) echo "slow active 2 delay 250ms limit 250ms loss 5%" ;;
	S3-1) echo "a active 50 delay 10ms limit 40ms" ;;
	S3-2) echo "b active 50 delay 10ms limit 40ms" ;;
	S4-1) echo "a active 50 delay 10ms limit 40ms loss 1%" ;;
	S4-2) echo "b active 50 delay 10ms limit 40ms loss 1%" ;;
	S5-1) echo "fast active 50 delay 10ms limit 40ms" ;;
	S5-2) echo "bloated active 10 delay 20ms limit 1s" ;;
	S6-1) echo "dsl active 20 delay 10ms limit 50ms" ;;
	S6-2) echo "lte active trace a2b trace $SCHED_TRACE.up b2a trace $SCHED_TRACE.down both delay 25ms jitter 10ms limit 200ms" ;;
	S7c-1) echo "fast active 40 delay 5ms limit 40ms" ;;
	S7c-2) echo "slow active 5 delay 50ms limit 100ms" ;;
	S8-1) echo "main active 50 delay 10ms limit 40ms" ;;
	S8-2) echo "spare backup 20 delay 20ms limit 40ms" ;;
	esac
}

sched_title() {
	case $1 in
	S1) echo "fast 400 Mbit/s 20 ms + slow 15 Mbit/s 240 ms" ;;
	S2) echo "fast 40 Mbit/s 20 ms + slow 2 Mbit/s 500 ms, 5% loss on the slow one" ;;
	S3) echo "two balanced 50 Mbit/s 20 ms" ;;
	S4) echo "two 50 Mbit/s 20 ms, 1% loss each" ;;
	S5) echo "fast 50 Mbit/s 20 ms + 10 Mbit/s 40 ms with a 1 s queue (bufferbloat)" ;;
	S6) echo "DSL 20 Mbit/s 20 ms + LTE (T-Mobile trace, 50 ms, jitter 10 ms)" ;;
	S7a) echo "requests of 1 MB every 100 ms over S1's pair" ;;
	S7b) echo "requests of 1 MB every 100 ms over S2's pair" ;;
	S7c) echo "requests of 1 MB every 100 ms over 40 Mbit/s 10 ms + 5 Mbit/s 100 ms" ;;
	S8) echo "50 Mbit/s 20 ms + a 20 Mbit/s 40 ms backup" ;;
	esac
}

# sched_linkem_words SC K [SCALE]: linkem's parameters of the uplink, its rate times SCALE.
sched_linkem_words() {
	sched_uplink "$1" "$2" | awk -v f="${3:-1}" '{
		rate = $3; $1 = $2 = $3 = ""; sub(/^ +/, "")
		if (rate == "trace") print; else printf "rate %smbit %s\n", rate * f, $0 }'
}

# sched_is_requests SC: whether the scenario is S7's requests rather than a bulk transfer.
sched_is_requests() { case $1 in S7*) return 0 ;; esac; return 1; }

# The bond's rows: the rules each one turns off.
sched_mode_off() {
	case $1 in
	none) echo "penalise reinject avoid_blocking" ;;
	penalise) echo "reinject avoid_blocking" ;;
	penalise-noguard) echo "penalise_guard reinject avoid_blocking" ;;
	reinject) echo "penalise avoid_blocking" ;;
	both) echo "avoid_blocking" ;;
	avoid) echo "penalise reinject" ;;
	*) echo "" ;;
	esac
}
