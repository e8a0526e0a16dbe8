# The latency benchmark's tables, from its titles and results files
# (bench_latency.sh): per uplink set, a row per stream, direction, bulk
# setting and contender with the medians over the runs, and the targets
# (a), (b), (c), PASS or MISS. A miss is reported, never a failure: the
# exit status is 0.
#
# results: SET STREAM DIR CELL CONTENDER RUN METRIC VALUE, CELL one of none
# (no bulk), same (the bulk goes the stream's way), reverse (the other way),
# bulk (the bulk alone, STREAM "-").

function med(set, st, dir, cell, c, m) { return median(vals[set SUBSEP st SUBSEP dir SUBSEP cell SUBSEP c SUBSEP m]) }
function fmt(v, f) { return v == "" ? "-" : sprintf(f, v) }
function alone(c) { return c ~ /^alone:/ }
function label(set, c) { return alone(c) ? "alone:" uname[set, c] : c }
# The best (least) median of a metric among the uplinks alone; "" when none was measured.
function best(set, st, dir, cell, m,    i, v, b) {
	b = ""
	for (i = 1; i <= ncont; i++) {
		if (!alone(cont[i])) continue
		v = med(set, st, dir, cell, cont[i], m)
		if (v != "" && (b == "" || v + 0 < b + 0)) b = v
	}
	return b
}
function verdict(t, c, ok) {
	n_judged[t, c]++
	if (!ok) n_missed[t, c]++
	return ok ? "PASS" : "MISS"
}

FNR == NR {
	if ($1 == "secs") secs = $2
	else if ($1 == "runs") runs = $2
	else if ($1 == "tol_ms") tol = $2
	else if ($1 == "cc") bulk_cc = $2
	else if ($1 == "contenders") { for (i = 2; i <= NF; i++) cont[++ncont] = $i }
	else if ($1 == "note") { $1 = ""; note = substr($0, 2) }
	else if ($1 == "set") { s = $2; $1 = $2 = ""; title[s] = substr($0, 3); sets[++nsets] = s }
	else if ($1 == "name") uname[$2, $3] = $4
	next
}
{
	if ($8 == "-" || $8 == "") next
	k = $1 SUBSEP $2 SUBSEP $3 SUBSEP $4 SUBSEP $5 SUBSEP $7
	vals[k] = vals[k] " " $8
	if ($2 != "-" && !($2 in seen_stream)) { seen_stream[$2] = 1; streams[++nstreams] = $2 }
}

END {
	printf "latency benchmark: medians of %s run(s) of %s s; delays one way in ms; bulk: an inner TCP (%s)\n", runs, secs, bulk_cc == "" ? "cubic" : bulk_cc
	if (note != "") printf "note: %s\n", note
	ndirs = split("up down", dirs, " ")
	ncells = split("none same", cells, " ")
	for (si = 1; si <= nsets; si++) {
		set = sets[si]
		printf "\n== %s\n", title[set]
		printf "%-6s %-5s %-5s %-15s %8s %8s %8s %7s %7s %8s %6s  %-4s %-4s %-4s\n", "stream", "dir", "bulk", "contender",
			"p50", "p99", "p99.9", "jitter", "loss%", "bulk", "ratio", "(a)", "(b)", "(c)"
		for (ti = 1; ti <= nstreams; ti++) {
			st = streams[ti]
			for (di = 1; di <= ndirs; di++) {
				dir = dirs[di]
				for (ci = 1; ci <= ncells; ci++) {
					cell = cells[ci]
					bp99 = best(set, st, dir, cell, "p99_ms")
					bjit = best(set, st, dir, cell, "jitter_ms")
					bloss = best(set, st, dir, cell, "loss_pct")
					for (i = 1; i <= ncont; i++) {
						c = cont[i]
						p99 = med(set, st, dir, cell, c, "p99_ms")
						if (p99 == "" && med(set, st, dir, cell, c, "sent") == "") continue
						loss = med(set, st, dir, cell, c, "loss_pct")
						jit = med(set, st, dir, cell, c, "jitter_ms")
						bulk = cell == "same" ? med(set, st, dir, cell, c, "bulk_mbit") : ""
						ratio = cell == "same" ? med(set, st, dir, cell, c, "bulk_ratio") : ""
						a = b = cc = ""
						if (cell == "same" && !alone(c) && p99 != "" && bp99 != "") {
							ok = p99 <= bp99 + 10
							if (set == "burst") ok = ok && loss != "" && loss <= 0.1
							a = verdict("a", c, ok)
						}
						if (cell == "same" && ratio != "") b = verdict("b", c, ratio >= 0.95)
						if (cell == "none" && !alone(c) && p99 != "" && bp99 != "")
							cc = verdict("c", c, p99 <= bp99 + tol && jit <= bjit + tol && loss <= bloss)
						printf "%-6s %-5s %-5s %-15s %8s %8s %8s %7s %7s %8s %6s  %-4s %-4s %-4s\n", st, dir, cell == "same" ? "yes" : "no",
							label(set, c), fmt(med(set, st, dir, cell, c, "p50_ms"), "%.2f"), fmt(p99, "%.2f"),
							fmt(med(set, st, dir, cell, c, "p999_ms"), "%.2f"), fmt(jit, "%.3f"), fmt(loss, "%.3f"),
							fmt(bulk, "%.1f"), fmt(ratio, "%.3f"), a, b, cc
					}
				}
			}
		}
		# The bulk alone, each contender's reference for (b).
		printf "bulk alone, Mbit/s:"
		for (i = 1; i <= ncont; i++) {
			printf " %s up %s down %s;", label(set, cont[i]), fmt(med(set, "-", "up", "bulk", cont[i], "bulk_mbit"), "%.1f"),
				fmt(med(set, "-", "down", "bulk", cont[i], "bulk_mbit"), "%.1f")
		}
		printf "\n"
		# FEC's work over each contender's measurements (both ends, summed).
		line = ""
		for (i = 1; i <= ncont; i++) {
			par = med(set, "-", "-", "counters", cont[i], "fec_parity_sent")
			if (par == "" || alone(cont[i])) continue
			line = line sprintf(" %s parity %d repaired %d;", cont[i], par,
				med(set, "-", "-", "counters", cont[i], "fec_repaired"))
		}
		if (line != "") printf "fec, per run (medians):%s\n", line
	}
	printf "\ntargets (classes' targets; the other bond contenders judged the same way for reference):\n"
	printf "  (a) beside the bulk, p99 <= best uplink alone + 10 ms; on the burst set loss <= 0.1%%\n"
	printf "  (b) the bulk beside the stream >= 0.95 of the bulk alone (every contender)\n"
	printf "  (c) no bulk: p99 and jitter <= the best uplink alone's + %s ms, loss <= the best's\n", tol
	for (i = 1; i <= ncont; i++) {
		c = cont[i]
		line = ""
		split("a b c", ts, " ")
		for (t = 1; t <= 3; t++) {
			if (!n_judged[ts[t], c]) continue
			line = line sprintf("  (%s) %d of %d met", ts[t], n_judged[ts[t], c] - n_missed[ts[t], c], n_judged[ts[t], c])
		}
		if (line != "") printf "  %-15s%s\n", c, line
	}
}
