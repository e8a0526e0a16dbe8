# shellcheck shell=bash
# The compare benchmark's scenarios (docs/testing.md), sourced by
# bench_compare.sh: the paths a user's bond meets, each as linkem's words per
# uplink. Rates are the scenario's own, never scaled.

source tests/bench/scheduler_scenarios.sh

CMP_BULK="one200 one100 A B C D demo S1 S2 S3 S4 S5 S6 S8"
CMP_REQUESTS="rrA rrB"
CMP_TRANSFERS="sf1 sf2 sf3 sf4 sf5"
CMP_SCENARIOS_ALL="$CMP_BULK $CMP_REQUESTS $CMP_TRANSFERS"

# cmp_uplinks SC: one line per uplink, "NAME ROLE LINKEM-WORDS...".
cmp_uplinks() {
	local a_fast="rate 200mbit delay 10ms limit 50ms" t=tests/traces/TMobile-LTE-short
	case $1 in
	one200) echo "fast active $a_fast" ;;
	one100) echo "fast active rate 100mbit delay 10ms limit 50ms" ;;
	A | rrA)
		echo "fast active $a_fast"
		echo "slow active rate 7.5mbit delay 120ms limit 240ms"
		;;
	B | rrB)
		echo "fast active rate 40mbit delay 10ms limit 40ms"
		echo "slow active rate 2mbit delay 250ms limit 250ms loss 5%"
		;;
	C)
		echo "a active rate 100mbit delay 10ms limit 50ms"
		echo "b active rate 100mbit delay 10ms limit 50ms"
		;;
	D)
		echo "fast active $a_fast"
		echo "bloated active rate 7.5mbit delay 20ms limit 1s"
		;;
	demo) # make demo's three uplinks (tests/netns/demo.sh)
		echo "dsl active delay 10ms limit 50ms a2b rate 10mbit b2a rate 50mbit"
		echo "lte active delay 25ms limit 300p a2b trace $t.up b2a trace $t.down"
		echo "sat active delay 20ms jitter 4ms loss 0.5% limit 60ms a2b rate 15mbit b2a rate 100mbit"
		;;
	# The five cases of the kernel's MPTCP selftest simult_flows.sh: netem's
	# queue of 1000 packets, its delay one way on each path.
	sf1) echo "a active rate 10mbit limit 1000p"; echo "b active rate 10mbit limit 1000p" ;;
	sf2) echo "a active rate 10mbit delay 1ms limit 1000p"; echo "b active rate 10mbit delay 25ms limit 1000p" ;;
	sf3) echo "a active rate 15mbit limit 1000p"; echo "b active rate 5mbit limit 1000p" ;;
	sf4) echo "a active rate 15mbit delay 1ms limit 1000p"; echo "b active rate 5mbit delay 25ms limit 1000p" ;;
	sf5) echo "a active rate 15mbit delay 25ms limit 1000p"; echo "b active rate 5mbit delay 1ms limit 1000p" ;;
	S*)
		local k
		for k in 1 2; do
			sched_uplink "$1" "$k" | awk '{ print $1, $2 }' | tr '\n' ' '
			sched_linkem_words "$1" "$k"
		done
		;;
	esac
}

cmp_title() {
	case $1 in
	one200) echo "one uplink, 200 Mbit/s 20 ms, queue 50 ms" ;;
	one100) echo "one uplink, 100 Mbit/s 20 ms, queue 50 ms" ;;
	A) echo "A': 200 Mbit/s 20 ms q 50 ms + 7.5 Mbit/s 240 ms q 240 ms" ;;
	B) echo "B: 40 Mbit/s 20 ms + 2 Mbit/s 500 ms, 5% loss on it each way" ;;
	C) echo "C: 100 + 100 Mbit/s, both 20 ms" ;;
	D) echo "D: 200 Mbit/s 20 ms + 7.5 Mbit/s 40 ms with a 1 s queue" ;;
	demo) echo "make demo's uplinks: DSL 50/10, LTE trace, satellite 100/15 with 0.5% loss" ;;
	rrA) echo "requests of 1 MB every 100 ms over A's paths" ;;
	rrB) echo "requests of 1 MB every 100 ms over B's paths" ;;
	sf1) echo "simult_flows 10 + 10 Mbit/s" ;;
	sf2) echo "simult_flows 10 + 10 Mbit/s, 1 and 25 ms one way" ;;
	sf3) echo "simult_flows 15 + 5 Mbit/s" ;;
	sf4) echo "simult_flows 15 + 5 Mbit/s, 1 and 25 ms one way" ;;
	sf5) echo "simult_flows 15 + 5 Mbit/s, 25 and 1 ms one way" ;;
	S*) sched_title "$1" ;;
	esac
}

cmp_kind() {
	case $1 in
	rr*) echo requests ;;
	sf*) echo transfer ;;
	*) echo bulk ;;
	esac
}

# The simult_flows.sh bound for a 16 MiB transfer, in seconds: the time at
# nine tenths of the sum of the two rates, plus 0.45 s.
cmp_transfer_bound() {
	case $1 in
	sf*) echo 7.906 ;;
	esac
}
