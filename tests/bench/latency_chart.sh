#!/usr/bin/env bash
# The latency benchmark's charts: for each stream, uplink set and bulk
# setting (none, or the bulk going the stream's way), the one-way delay's
# distribution per contender, the runs pooled, upload and download side by
# side, in DIR/cdf-STREAM-SET-nobulk.png and -bulk.png. The vertical axis is
# the CDF on a scale of nines (0.9, 0.99, 0.999: -log10(1 - F)), so the tail
# that a call or a game feels is as wide as the middle; the delay is on a
# log scale.
#
#   tests/bench/latency_chart.sh DIR     (DIR: bench_latency.sh's output)
set -eu
dir=$1
titles=$dir/titles.txt
if [ ! -s "$titles" ] || [ ! -d "$dir/delays" ]; then
	echo "latency chart: no results in $dir" >&2
	exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

read -r -a contenders <<<"$(awk '$1 == "contenders" { $1 = ""; print }' "$titles")"
streams=$(awk '$2 != "-" && !s[$2]++ { print $2 }' "$dir/results.txt")
made=0
for set in $(awk '$1 == "set" { print $2 }' "$titles"); do
	title=$(awk -v s="$set" '$1 == "set" && $2 == s { $1 = $2 = ""; print substr($0, 3) }' "$titles")
	for stream in $streams; do
		for cell in nobulk bulk; do
			plots=()
			for d in up down; do
				bulk=none
				[ "$cell" = bulk ] && bulk=$d
				p=""
				for c in "${contenders[@]}"; do
					f=$tmp/$set-$stream-$cell-$d-${c/:/-}.dat
					# The runs pooled: sorted, each delay at its nines, -log10(1 - (i - 0.5) / n).
					cat "$dir/delays/${set}_${stream}_${bulk}_${c/:/-}_"*"-$d.txt" 2>/dev/null | sort -g |
						awk '{ v[NR] = $1 } END { for (i = 1; i <= NR; i++) if (v[i] > 0) print v[i], -log((NR - i + 0.5) / NR) / log(10) }' >"$f"
					[ -s "$f" ] || continue
					name=$c
					[ "${c#alone:}" != "$c" ] && name="alone:$(awk -v s="$set" -v c="$c" '$1 == "name" && $2 == s && $3 == c { print $4 }' "$titles")"
					p+="${p:+, }\"$f\" using 1:2 with lines lw 2 title \"$name\""
				done
				plots+=("$p")
			done
			[ -n "${plots[0]}${plots[1]}" ] || continue
			out=$dir/cdf-$stream-$set-$cell.png
			what=$([ "$cell" = bulk ] && echo "beside a bulk TCP the same way" || echo "no other traffic")
			gnuplot <<PLOT
set terminal pngcairo size 1400,560 font ",10"
set output "$out"
set multiplot layout 1,2 title "$stream, $what: $title" noenhanced
set logscale x
set xlabel "one-way delay, ms"
set ylabel "fraction of packets delivered (CDF)"
set ytics ("0" 0, "0.5" 0.30103, "0.9" 1, "0.99" 2, "0.999" 3, "0.9999" 4)
set yrange [0:*]
set grid xtics ytics mxtics
set key bottom right noenhanced
set title "upload (lan to srv)"
$([ -n "${plots[0]}" ] && echo "plot ${plots[0]}" || echo "set multiplot next")
set title "download (srv to lan)"
$([ -n "${plots[1]}" ] && echo "plot ${plots[1]}" || echo "set multiplot next")
unset multiplot
PLOT
			made=$((made + 1))
		done
	done
done
[ "$made" -gt 0 ] || { echo "latency chart: no delays to draw" >&2; exit 1; }
