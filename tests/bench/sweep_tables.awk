# The sweep benchmark's table (bench_sweep.sh): from draws.txt (the draws)
# and results.txt ("DRAW CC DIR ROW RUN METRIC VALUE" lines), one line per
# cell: the best uplink alone, their sum, kernel MPTCP, wanbond (medians),
# its ratios, the simulator's figure for the cell and its ratio to the
# namespaces', and what explains the cell. Then the sweep's targets
# (docs/scheduler.md): every cell at least 0.93 of the best alone; the
# median at least 0.90 of the sum and at least MPTCP; no cell below 0.8 of
# MPTCP; the simulator within 15%. Also writes chart.dat beside results.txt.
function ratio(a, b) { return (a != "" && b + 0 > 0) ? sprintf("%.2f", a / b) : "-" }
FNR == NR { topology[$1] = $(NF - 2); nd++; next }
{
	key = $1 " " $2 " " $3
	if (!(key in seen)) { seen[key] = 1; nc++; cell[nc] = key }
	v = $1 " " $2 " " $3 " " $4 " " $6
	vals[v] = vals[v] " " $7
	if ($4 ~ /^alone:/) { k = substr($4, 7); if (k > nup[$1]) nup[$1] = k }
}
END {
	chart = FILENAME; sub(/results\.txt$/, "chart.dat", chart)
	printf "%-7s %-5s %-4s %-7s %-9s %7s %7s %7s %7s %6s %6s %6s %7s %6s  %s\n", "draw", "cc", "dir", "moment", "topology",
		"best", "sum", "mptcp", "bond", "/best", "/sum", "/mptcp", "sim", "sim/ns", "shares | cpu % | aqm drops, skips, reinjected %"
	for (c = 1; c <= nc; c++) {
		split(cell[c], f, " "); d = f[1]; pre = cell[c] " "
		best = 0; sum = 0
		for (k = 1; k <= nup[d]; k++) { a = median(vals[pre "alone:" k " goodput"]); sum += a; if (a > best) best = a }
		mp = median(vals[pre "mptcp goodput"]); bond = median(vals[pre "bond goodput"]); sim = median(vals[pre "sim goodput"])
		split(vals[pre "bond moment"], mo, " ")
		topo = topology[d]
		shares = ""
		for (k = 1; k <= nup[d]; k++) shares = shares sprintf("%.2f ", median(vals[pre "bond share_u" k]))
		tx = median(vals[pre "bond tun_rx_bytes"]); re = median(vals[pre "bond opp_reinject_bytes"])
		printf "%-7s %-5s %-4s %-7s %-9s %7.1f %7.1f %7s %7.1f %6s %6s %6s %7.1f %6s  %s| %.0f | %d, %d, %.1f\n", d, f[2], f[3], mo[1], topo,
			best, sum, mp == "" ? "-" : sprintf("%.1f", mp), bond, ratio(bond, best), ratio(bond, sum), ratio(bond, mp), sim, ratio(sim, bond),
			shares, median(vals[pre "bond cpu_pct"]), median(vals[pre "bond aqm_drops"]), median(vals[pre "bond reorder_skips"]),
			(tx > 0) ? 100 * re / tx : 0
		n++
		rb[n] = (best > 0) ? bond / best : 0; rs = rs " " ((sum > 0) ? bond / sum : 0)
		if (rb[n] < 0.93) { below++; belows = belows " " d "/" f[2] "/" f[3] }
		if (mp != "" && mp > 0) { rm = rm " " bond / mp; if (bond / mp < 0.8) { under_mp++; unders = unders " " d "/" f[2] "/" f[3] } }
		if (bond > 0) { agree_n++; if (sim / bond >= 0.85 && sim / bond <= 1.15) agree++ }
		printf "%s/%s/%s %.3f %s\n", d, f[2], f[3], rb[n], (mp != "" && mp > 0) ? sprintf("%.3f", bond / mp) : "-" >chart
	}
	printf "\n%d cells of %d draws. The targets:\n", n, nd
	printf "  every cell >= 0.93 x the best uplink alone: %s (%d below:%s)\n", below ? "MISSED" : "met", below, belows
	printf "  median >= 0.90 x the sum alone: %.3f, %s\n", median(rs), (median(rs) >= 0.90) ? "met" : "MISSED"
	printf "  median >= kernel MPTCP: %.3f, %s\n", median(rm), (median(rm) >= 1) ? "met" : "MISSED"
	printf "  no cell below 0.8 x MPTCP: %s (%d:%s)\n", under_mp ? "MISSED" : "met", under_mp, unders
	printf "  the simulator within 15%% of the namespaces: %d of %d cells\n", agree, agree_n
	exit (below || under_mp || median(rs) < 0.90 || median(rm) < 1) ? 1 : 0
}
