# The compare benchmark's tables, from its titles and results files
# (bench_compare.sh): medians over the runs, ratios of wanbond over the
# best path alone, their sum and kernel MPTCP, and the targets of
# docs/scheduler.md. Writes chart.dat beside the results for the chart.
# Exit status 1 when a target is missed.

function med(sc, cc, dir, row, m) { return median(vals[sc SUBSEP cc SUBSEP dir SUBSEP row SUBSEP m]) }
function fmt(v, f) { return v == "" ? "-" : sprintf(f, v) }
function ratio(a, b) { return (a == "" || b == "" || b + 0 == 0) ? "" : a / b }
function verdict(ok) { total++; if (!ok) missed++; return ok ? "met" : "MISSED" }

FNR == NR {
	if ($2 == "name") { uname[$1, $3] = $4; next }
	if ($2 == "bound") { bound[$1] = $3; next }
	sc = $1; $1 = ""; title[sc] = substr($0, 2); order[++nsc] = sc
	next
}
{
	k = $1 SUBSEP $2 SUBSEP $3 SUBSEP $4 SUBSEP $6
	vals[k] = vals[k] " " $7
	if (!(($1, $2, $3) in seen_cell)) { seen_cell[$1, $2, $3] = 1; cells[$1] = cells[$1] " " $2 ":" $3 }
	if (!(($1, $4) in seen_row)) { seen_row[$1, $4] = 1; rows[$1] = rows[$1] " " $4 }
	if ($6 ~ /^share_/ && !(($1, $6) in seen_share)) { seen_share[$1, $6] = 1; shares[$1] = shares[$1] " " $6 }
	runs[$1] = $5 > runs[$1] ? $5 : runs[$1]
}

function bond_rows(sc,    n, r, i, out) {
	n = split(rows[sc], r, " ")
	out = ""
	for (i = 1; i <= n; i++) if (r[i] !~ /^alone:/ && r[i] != "mptcp") out = out " " r[i]
	return out
}
function alone_rows(sc,    n, r, i, out) {
	n = split(rows[sc], r, " ")
	out = ""
	for (i = 1; i <= n; i++) if (r[i] ~ /^alone:/) out = out " " r[i]
	return out
}

function explain(sc, cc, dir,    s, n, sh, i, line) {
	line = sprintf("      default: cpu client %s%% server %s%%, machine %s%%; inner retrans %s, ofo %s; aqm drops %s, queue drops %s, resent %s, bond timeouts %s, reinjected %s, penalised %s; reorder skips %s, held max %s KB",
		fmt(med(sc, cc, dir, "default", "cpu_client_pct"), "%.0f"), fmt(med(sc, cc, dir, "default", "cpu_server_pct"), "%.0f"),
		fmt(med(sc, cc, dir, "default", "machine_busy_pct"), "%.0f"),
		fmt(med(sc, cc, dir, "default", "retrans"), "%d"), fmt(med(sc, cc, dir, "default", "ofo"), "%d"),
		fmt(med(sc, cc, dir, "default", "aqm_drops"), "%d"), fmt(med(sc, cc, dir, "default", "queue_drops"), "%d"),
		fmt(med(sc, cc, dir, "default", "retransmits"), "%d"), fmt(med(sc, cc, dir, "default", "bond_timeouts"), "%d"),
		fmt(med(sc, cc, dir, "default", "opp_reinject"), "%d"), fmt(med(sc, cc, dir, "default", "penalised"), "%d"),
		fmt(med(sc, cc, dir, "default", "reorder_skips"), "%d"),
		fmt(med(sc, cc, dir, "default", "reorder_held_max") / 1024, "%.0f"))
	n = split(shares[sc], sh, " ")
	for (i = 1; i <= n; i++)
		line = line sprintf("; %s %s%%", substr(sh[i], 7), fmt(100 * med(sc, cc, dir, "default", sh[i]), "%.0f"))
	print line
}

function bulk_table(sc,    nc, c, i, cc, dir, a, na, j, best, sum, g, mp, br, nb, b, line, ok, tgt) {
	printf "%-6s %-5s %8s %8s %8s %8s  %6s %6s %6s  %-7s", "cc", "dir", "best", "sum", "mptcp", "wanbond", "/best", "/sum", "/mptcp", "target"
	nb = split(bond_rows(sc), br, " ")
	for (j = 2; j <= nb; j++) printf " %10s", substr(br[j], 1, 10)
	printf "\n"
	nc = split(cells[sc], c, " ")
	for (i = 1; i <= nc; i++) {
		split(c[i], cd, ":"); cc = cd[1]; dir = cd[2]
		na = split(alone_rows(sc), a, " ")
		best = 0; sum = 0
		for (j = 1; j <= na; j++) {
			g = med(sc, cc, dir, a[j], "goodput")
			sum += g; if (g > best) best = g
		}
		mp = med(sc, cc, dir, "mptcp", "goodput")
		b = med(sc, cc, dir, "default", "goodput")
		tgt = 0.93 * best > 0.90 * sum ? 0.93 * best : 0.90 * sum
		if (na < 2) tgt = 0.92 * best
		ok = b != "" && b >= tgt
		if (mp != "") ok = ok && b >= (mp >= 0.95 * sum ? 0.97 * mp : mp)
		line = sprintf("%-6s %-5s %8.1f %8.1f %8s %8s  %6s %6s %6s  %-7s", cc, dir, best, sum, fmt(mp, "%.1f"), fmt(b, "%.1f"),
			fmt(ratio(b, best), "%.2f"), fmt(na > 1 ? ratio(b, sum) : "", "%.2f"), fmt(ratio(b, mp), "%.2f"), verdict(ok))
		for (j = 2; j <= nb; j++) line = line sprintf(" %10s", fmt(med(sc, cc, dir, br[j], "goodput"), "%.1f"))
		print line
		if (ok == 0) misses = misses sprintf("  %s %s %s: wanbond %s, target %.1f%s\n", sc, cc, dir, fmt(b, "%.1f"), tgt, mp != "" ? sprintf(" (MPTCP %.1f)", mp) : "")
		explain(sc, cc, dir)
		printf "%s_%s_%s %s %s %s\n", sc, cc, dir, fmt(ratio(b, best), "%.3f"), fmt(na > 1 ? ratio(b, sum) : "", "%.3f"), fmt(ratio(b, mp), "%.3f") >chart
	}
}

function requests_table(sc,    nc, c, i, cc, a50, a95, m95, b50, b95, ok) {
	printf "%-6s %14s %10s %14s  %6s %6s  %s\n", "cc", "alone p50/p95", "mptcp p95", "wanbond p50/p95", "p50/", "p95/", "target (p50 <= 1.1x, p95 <= 1.2x)"
	nc = split(cells[sc], c, " ")
	for (i = 1; i <= nc; i++) {
		split(c[i], cd, ":"); cc = cd[1]
		a50 = med(sc, cc, "down", "alone:1", "p50_ms"); a95 = med(sc, cc, "down", "alone:1", "p95_ms")
		m95 = med(sc, cc, "down", "mptcp", "p95_ms")
		b50 = med(sc, cc, "down", "default", "p50_ms"); b95 = med(sc, cc, "down", "default", "p95_ms")
		ok = b50 != "" && b50 <= 1.1 * a50 && b95 <= 1.2 * a95
		printf "%-6s %6s/%-7s %10s %6s/%-7s  %6s %6s  %s\n", cc, fmt(a50, "%.1f"), fmt(a95, "%.1f"), fmt(m95, "%.1f"),
			fmt(b50, "%.1f"), fmt(b95, "%.1f"), fmt(ratio(b50, a50), "%.2f"), fmt(ratio(b95, a95), "%.2f"), verdict(ok)
		if (!ok) misses = misses sprintf("  %s %s: p50 %s p95 %s ms against %.1f / %.1f alone\n", sc, cc, fmt(b50, "%.1f"), fmt(b95, "%.1f"), a50, a95)
		explain(sc, cc, "down")
	}
}

function transfer_table(sc,    nc, c, i, cc, dir, nr, r, j, v, ok, line) {
	printf "%-6s %-5s", "cc", "dir"
	nr = split(rows[sc], r, " ")
	for (j = 1; j <= nr; j++) printf " %10s", substr(r[j] ~ /^alone:/ ? uname[sc, r[j]] " alone" : r[j], 1, 10)
	printf "  bound %.2f s\n", bound[sc]
	nc = split(cells[sc], c, " ")
	for (i = 1; i <= nc; i++) {
		split(c[i], cd, ":"); cc = cd[1]; dir = cd[2]
		line = sprintf("%-6s %-5s", cc, dir)
		for (j = 1; j <= nr; j++) line = line sprintf(" %10s", fmt(med(sc, cc, dir, r[j], "seconds"), "%.2f"))
		v = med(sc, cc, dir, "default", "seconds")
		ok = v != "" && v > 0 && v <= bound[sc]
		print line "  " verdict(ok)
		if (!ok) misses = misses sprintf("  %s %s %s: wanbond %s s, bound %.2f s\n", sc, cc, dir, fmt(v, "%.2f"), bound[sc])
	}
}

END {
	chart = ARGV[2]; sub(/results\.txt$/, "chart.dat", chart)
	printf "" >chart
	for (s = 1; s <= nsc; s++) {
		sc = order[s]
		if (!(sc in runs)) continue
		printf "\n== %s: %s (medians of %d runs; Mbit/s)\n", sc, title[sc], runs[sc]
		na = split(alone_rows(sc), a, " ")
		printf "   paths:"
		for (j = 1; j <= na; j++) printf " %s=%s", a[j], uname[sc, a[j]]
		printf "\n"
		if (sc ~ /^rr/) requests_table(sc)
		else if (sc in bound) transfer_table(sc)
		else bulk_table(sc)
	}
	printf "\ntargets: %d of %d met\n", total - missed, total
	if (missed) printf "missed:\n%s", misses
	exit missed > 0
}
