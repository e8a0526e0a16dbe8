#!/usr/bin/env bash
# The sweep benchmark's chart: for each cell, wanbond over the best uplink
# alone and over kernel MPTCP (chart.dat from sweep_tables.awk), as
# grouped bars in DIR/sweep.png, with the line at 1.
set -eu
dir=$1
[ -s "$dir/chart.dat" ] || { echo "sweep chart: no cells to draw" >&2; exit 1; }
cells=$(wc -l <"$dir/chart.dat")
gnuplot <<PLOT
set terminal pngcairo size $((400 + cells * 30)),560 font ",10"
set output "$dir/sweep.png"
set title "wanbond over random uplinks, a real TCP inside: over the best alone, over MPTCP"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set yrange [0:*]
set ylabel "wanbond goodput over ..."
set xtics rotate by -60 noenhanced font ",8"
set grid ytics
set key top left
set datafile missing "-"
set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2 lc rgb "black"
plot "$dir/chart.dat" using 2:xtic(1) title "best uplink alone", "" using 3 title "kernel MPTCP"
PLOT
