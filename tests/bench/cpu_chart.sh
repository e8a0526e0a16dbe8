#!/usr/bin/env bash
# The CPU benchmark's chart: for each cell, the goodput through wanbond and
# through wireguard-go against the client's CPU cap (chart-CELL.dat and
# chart.list from cpu_tables.awk), one panel per cell, in DIR/cpu.png.
set -eu
dir=$1
[ -s "$dir/chart.list" ] || { echo "cpu chart: no cells to draw" >&2; exit 1; }
cells=$(wc -l <"$dir/chart.list")
{
	width=$((80 + cells * 460)); [ "$width" -ge 720 ] || width=720
	echo "set terminal pngcairo size $width,560 font \",10\""
	echo "set output \"$dir/cpu.png\""
	echo "set datafile separator \"\\t\""
	echo "set datafile missing \"-\""
	echo "set multiplot layout 1,$cells title \"Goodput through the tunnel against the CPU cap of its router end, in % of one core (medians)\""
	echo "set yrange [0:*]"
	echo "set ylabel \"Mbit/s\""
	echo "set grid ytics"
	echo "set offsets 0.3, 0.3, 0, 0"
	echo "set key below noenhanced font \",8\""
	while IFS=$'\t' read -r cell nw ns title; do
		f=$dir/chart-$cell.dat
		echo "set title \"$title\" noenhanced"
		plot="plot for [i=2:$((nw + 1))] \"$f\" using 0:i:xtic(1) with linespoints lw 2 pt 7 title columnheader(i)"
		[ "$ns" -gt "$nw" ] && plot+=", for [i=$((nw + 2)):$((ns + 1))] \"$f\" using 0:i:xtic(1) with linespoints lw 2 dt 2 pt 6 title columnheader(i)"
		echo "$plot"
	done <"$dir/chart.list"
	echo "unset multiplot"
} | gnuplot
