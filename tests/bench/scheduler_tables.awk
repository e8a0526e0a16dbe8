# The scheduler benchmark's tables and targets, from its results.
#
# Input: first a titles file ("SCENARIO title..."), then the results, one
# metric per line: "SCENARIO DIR VARIANT ROW SEED METRIC VALUE", ROW being
# "alone:LINK" or a set of the scheduler's rules. Medians are over seeds.
# Exits 1 if a target is missed (docs/scheduler.md lists them).

function minimum(list,    n, a, i, m) {
	n = split(list, a, " "); m = a[1]
	for (i = 2; i <= n; i++) if (a[i] + 0 < m + 0) m = a[i]
	return m
}
function maximum(list,    n, a, i, m) {
	n = split(list, a, " "); m = a[1]
	for (i = 2; i <= n; i++) if (a[i] + 0 > m + 0) m = a[i]
	return m
}
# Rows in a fixed order: each uplink alone (by name), then the bond's rule sets, then the contender.
function rank(row) {
	if (row ~ /^alone:/) return "0" row
	return index(" none penalise penalise-noguard reinject both avoid default mptcp ", " " row " ") + 1000
}
function ordered(list,    n, a, i, j, t) {
	n = split(list, a, " ")
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && rank(a[j - 1]) "" > rank(a[j]) ""; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
	t = ""
	for (i = 1; i <= n; i++) t = t " " a[i]
	return t
}
function variant_label(v) {
	if (v == "6mb") return "default buffers (6 MB)"
	if (v == "rwnd512k") return "receive window 512 KB"
	if (v == "sndbuf512k") return "send buffer 512 KB"
	if (v ~ /^x/) return "rates and buffers scaled by " substr(v, 2)
	return v
}
# The targets on the sum apply to the default buffers (scaled in namespaces).
function main_variant(v) { return v == "6mb" || v ~ /^x/ }
function sorted(list,    n, a, i, j, t) {
	n = split(list, a, " ")
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
	t = ""
	for (i = 1; i <= n; i++) t = t " " a[i]
	return t
}
function med(key, metric) { return median(vals[key SUBSEP metric]) }
function verdict(ok) { if (!ok) missed++; return ok ? "met" : "NOT MET" }

FNR == NR { t = $1; $1 = ""; title[t] = substr($0, 2); next }
{
	sc = $1; dir = $2; v = $3; row = $4; m = $6
	case_key = sc SUBSEP dir SUBSEP v
	if (!(case_key in seen)) { seen[case_key] = 1; cases[++ncases] = case_key }
	key = case_key SUBSEP row
	if (!(key in row_seen)) { row_seen[key] = 1; rows[case_key] = ordered(rows[case_key] " " row) }
	if (row ~ /^alone:/ && !((case_key SUBSEP row) in link_seen)) {
		link_seen[case_key SUBSEP row] = 1
		links[case_key] = sorted(links[case_key] " " substr(row, 7))
	}
	vals[key SUBSEP m] = vals[key SUBSEP m] " " $7
}

function bulk_table(c, sc, dir, v,    n, l, i, r, key, g, sum, best, s, share, nr, rl, line) {
	n = split(links[c], l, " ")
	sum = 0; best = 0
	line = "  alone  "
	for (i = 1; i <= n; i++) {
		g = med(c SUBSEP "alone:" l[i], "goodput_" dir "_mbit")
		line = line sprintf("  %s %.1f", l[i], g)
		sum += g; if (g > best) best = g
	}
	printf "%s   sum %.1f Mbit/s (medians)\n", line, sum
	printf "  %-17s %8s %8s %8s %6s %6s  %-14s %7s %6s %5s\n", "bond, rules on", "min", "median", "max", "/sum", "/best",
		"share (%)", "reinj%", "penal", "skips"
	nr = split(rows[c], rl, " ")
	for (r = 1; r <= nr; r++) {
		if (rl[r] ~ /^alone:/) continue
		key = c SUBSEP rl[r]
		g = med(key, "goodput_" dir "_mbit")
		share = ""
		for (i = 1; i <= n; i++) share = share (i > 1 ? "/" : "") sprintf("%.0f", 100 * med(key, "share_" l[i] "_" dir))
		printf "  %-17s %8.1f %8.1f %8.1f %6.2f %6.2f  %-14s %7.2f %6d %5d\n", rl[r],
			minimum(vals[key SUBSEP "goodput_" dir "_mbit"]), g, maximum(vals[key SUBSEP "goodput_" dir "_mbit"]),
			sum ? g / sum : 0, best ? g / best : 0, share, 100 * med(key, "reinject_ratio_" dir),
			med(key, "penalised_" dir), med(key, "skips")
		bulk_g[c SUBSEP rl[r]] = g
	}
	bulk_sum[c] = sum; bulk_best[c] = best
}

function rr_table(c,    n, l, i, r, nr, rl, key) {
	printf "  %-17s %8s %8s %8s\n", "", "requests", "p50 ms", "p95 ms"
	nr = split(rows[c], rl, " ")
	for (r = 1; r <= nr; r++) {
		key = c SUBSEP rl[r]
		printf "  %-17s %8d %8.1f %8.1f\n", rl[r], med(key, "rr_requests"), med(key, "rr_p50_ms"), med(key, "rr_p95_ms")
		p95[key] = med(key, "rr_p95_ms")
	}
}

END {
	for (i = 1; i <= ncases; i++) {
		split(cases[i], p, SUBSEP)
		printf "\n%s %s; %s, %s\n", p[1], title[p[1]], p[2] == "down" ? "download" : "upload",
			variant_label(p[3])
		if (p[1] ~ /^S7/) rr_table(cases[i]); else bulk_table(cases[i], p[1], p[2], p[3])
	}
	print "\nTargets (the bond with every rule on: the \"default\" row; the seeds' two cures alone: \"both\")"
	for (i = 1; i <= ncases; i++) {
		c = cases[i]; split(c, p, SUBSEP)
		if (p[1] ~ /^S7/) {
			n = split(links[c], l, " ")
			f = ""
			for (j = 1; j <= n; j++) if (f == "" || p95[c SUBSEP "alone:" l[j]] < f) f = p95[c SUBSEP "alone:" l[j]]
			printf "  %-4s %-4s p95 per request <= 1.2 x the fast uplink's alone (%.1f ms): default %.1f ms %s; both %.1f ms\n",
				p[1], p[2], f, p95[c SUBSEP "default"], verdict(p95[c SUBSEP "default"] <= 1.2 * f), p95[c SUBSEP "both"]
			continue
		}
		if (p[1] == "S8") {
			n = split(links[c], l, " ")
			bk = med(c SUBSEP "default", "ip_packets_spare_" p[2])
			if (bk == "") # the namespaces count both directions of a run at once, under down
				printf "  %-4s %-4s the backup carries no IP packet: counted with down\n", p[1], p[2]
			else
				printf "  %-4s %-4s the backup carries no IP packet: %d %s\n", p[1], p[2], bk, verdict(bk + 0 == 0)
			continue
		}
		d = bulk_g[c SUBSEP "default"]; b = bulk_g[c SUBSEP "both"]
		printf "  %-4s %-4s %-10s >= best alone (%.1f): default %.1f %s; both %.1f %s\n", p[1], p[2], p[3],
			bulk_best[c], d, verdict(d >= bulk_best[c]), b, (b >= bulk_best[c]) ? "yes" : "no"
		goal = p[1] == "S1" ? 0.85 : p[1] == "S2" ? 0.80 : p[1] == "S3" || p[1] == "S4" ? 0.90 : 0
		if (goal && main_variant(p[3]))
			printf "  %-4s %-4s %-10s >= %.2f of the sum: default %.3f %s; both %.3f\n", p[1], p[2], p[3], goal,
				d / bulk_sum[c], verdict(d / bulk_sum[c] >= goal), b / bulk_sum[c]
		if ((c SUBSEP "mptcp") in bulk_g && p[1] ~ /^S[1256]$/)
			printf "  %-4s %-4s %-10s beats kernel MPTCP (%.1f): default %.1f %s\n", p[1], p[2], p[3],
				bulk_g[c SUBSEP "mptcp"], d, verdict(d > bulk_g[c SUBSEP "mptcp"])
		ri = 100 * med(c SUBSEP "default", "reinject_ratio_" p[2])
		limit = p[1] == "S3" ? 0.5 : 5
		printf "  %-4s %-4s %-10s reinjected <= %.1f%% of the bytes: default %.2f%% %s\n", p[1], p[2], p[3], limit, ri,
			verdict(ri <= limit)
	}
	printf "\n%d target(s) missed\n", missed
	exit missed > 0
}
