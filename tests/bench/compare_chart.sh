#!/usr/bin/env bash
# The compare benchmark's chart: for each bulk cell, wanbond over the best
# path alone, over their sum and over kernel MPTCP (chart.dat from
# compare_tables.awk), as grouped bars in DIR/compare.png.
set -eu
dir=$1
[ -s "$dir/chart.dat" ] || { echo "compare chart: no bulk cells to draw" >&2; exit 1; }
cells=$(wc -l <"$dir/chart.dat")
gnuplot <<PLOT
set terminal pngcairo size $((400 + cells * 36)),560 font ",10"
set output "$dir/compare.png"
set title "wanbond with a real TCP inside, against each path alone, their sum and kernel MPTCP (medians)"
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
plot "$dir/chart.dat" using 2:xtic(1) title "best path alone", "" using 3 title "sum of the paths", "" using 4 title "kernel MPTCP"
PLOT
