# The CPU benchmark's tables (bench_cpu.sh), from its cells.txt ("CELL
# TITLE...") and runs.tsv (one line per measurement, a header first):
# medians over the runs for each cell, cc, direction, tunnel and cap, the
# targets PASS or MISS, and the chart's data (chart-CELL.dat, chart.list in
# out) for cpu_chart.sh. Variables: caps (their order), out.
# Exit status 1 when a target is missed.

function num(x) { return x != "" && x != "-" }
function fmt(x, f) { return num(x) ? sprintf(f, x) : "-" }
function per(a, b) { return (num(a) && num(b) && b + 0 > 0) ? a / b : "" }
function v(name) { return $(col[name]) }
function add(k, m, x) { if (num(x)) vals[k, m] = vals[k, m] " " x }
function med(k, m) { return ((k, m) in vals) ? median(vals[k, m]) : "" } # (a lookup would create the entry)
function key(cell, cc, dir, tun, cap) { return cell SUBSEP cc SUBSEP dir SUBSEP tun SUBSEP cap }
function caplabel(cap) { return cap == "none" ? "none" : cap "%" }
function ratio(a, b) { return (num(a) && num(b) && b + 0 > 0) ? a / b : "" }

BEGIN {
	FS = "\t"
	ncaps = split(caps, cap_list, " ")
	npaths = split("tun_rd tun_wr udp_tx udp_rx", paths, " ")
	pname["tun_rd"] = "TUN read"; pname["tun_wr"] = "TUN write"; pname["udp_tx"] = "UDP send"; pname["udp_rx"] = "UDP receive"
}

FNR == NR {
	split($0, w, " ")
	t = $0; sub(/^[^ ]+ /, "", t)
	title[w[1]] = t; cell_order[++ncells] = w[1]
	next
}
FNR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
{
	cell = v("cell"); cc = v("cc"); dir = v("dir"); tun = v("tunnel"); cap = v("cap")
	k = key(cell, cc, dir, tun, cap)
	if (!((cell, cc, dir) in seen)) { seen[cell, cc, dir] = 1; combos[cell] = combos[cell] " " cc ":" dir }
	if (v("run") > runs) runs = v("run")
	gb = v("bytes") / 1e9
	add(k, "mbit", v("mbit"))
	add(k, "cpu", per(100 * (v("c_user_s") + v("c_sys_s")), v("secs")))
	add(k, "thr", v("periods") > 0 ? 100 * v("throttled") / v("periods") : 0)
	add(k, "mach", v("machine_pct"))
	add(k, "cu", per(v("c_user_s"), gb)); add(k, "cs", per(v("c_sys_s"), gb))
	add(k, "ct", per(v("c_user_s") + v("c_sys_s"), gb))
	add(k, "su", per(v("s_user_s"), gb)); add(k, "ss", per(v("s_sys_s"), gb))
	for (s = 1; s <= 2; s++) {
		side = s == 1 ? "c" : "s"
		for (p = 1; p <= npaths; p++)
			add(k, side "_" paths[p], per(v(side "_" paths[p] "_pkts"), v(side "_" paths[p] "_calls")))
		if (num(v(side "_waits")))
			add(k, side "_waits", per(1000 * v(side "_waits"), v(side "_tun_rd_pkts") + v(side "_tun_wr_pkts")))
		add(k, side "_rss", v(side "_rss_kb") / 1024)
		if (num(v(side "_cycles"))) { add(k, side "_cyc", per(v(side "_cycles"), v("bytes"))); cycles = 1 }
	}
	# The end of the cell: the last measurement of each tunnel's life.
	last[cell, cc, dir, tun, v("run")] = $0
}

function end_of_cells(    e, parts, line, f, i, m, names, n) {
	n = split("c_rss_kb c_hwm_kb s_rss_kb s_hwm_kb c_pool_b c_pool_peak_b s_pool_b s_pool_peak_b", names, " ")
	for (e in last) {
		split(e, parts, SUBSEP)
		split(last[e], f, "\t")
		m = parts[1] SUBSEP parts[2] SUBSEP parts[3] SUBSEP parts[4]
		for (i = 1; i <= n; i++) if (num(f[col[names[i]]])) mem[m, names[i]] = mem[m, names[i]] " " f[col[names[i]]]
	}
}
function memmed(cell, cc, dir, tun, name) { return ((cell, cc, dir, tun, name) in mem) ? median(mem[cell, cc, dir, tun, name]) : "" }
function mb(x) { return fmt(num(x) ? x / 1024 : "", "%.1f") }
function mbb(x) { return fmt(num(x) ? x / 1048576 : "", "%.2f") }

function ppc(k, side,    p, out) {
	out = ""
	for (p = 1; p <= npaths; p++) out = out (p > 1 ? "/" : "") fmt(med(k, side "_" paths[p]), "%.1f")
	return out
}
function pair(a, b, f) { return (num(a) || num(b)) ? fmt(a, f) "+" fmt(b, f) : "-" }
function slash(a, b, f) { return (num(a) || num(b)) ? fmt(a, f) "/" fmt(b, f) : "-" }

function table(cell, cc, dir,    t, tun, c, k, base, line, ref, i) {
	printf "\n== %s: %s; inner %s, %s; medians of %d run(s)\n", cell, title[cell], cc, dir == "up" ? "upload" : "download", runs
	printf "%-12s %-5s %7s %6s %6s %4s %5s %12s %12s %19s %19s %9s %9s%s\n", "", "", "Mbit/s", "ratio", "client", "thr", "mach",
		"client s/GB", "server s/GB", "client pkts/call", "server pkts/call", "waits/1k", "RSS MB", cycles ? sprintf(" %11s", "cycles/B") : ""
	printf "%-12s %-5s %7s %6s %6s %4s %5s %12s %12s %19s %19s %9s %9s%s\n", "tunnel", "cap", "", "/none", "cpu%", "%", "%",
		"user+sys", "user+sys", "rd/wr/snd/rcv", "rd/wr/snd/rcv", "c/s", "c/s", cycles ? sprintf(" %11s", "c/s") : ""
	for (t = 1; t <= 2; t++) {
		tun = t == 1 ? "wanbond" : "wireguard-go"
		base = med(key(cell, cc, dir, tun, "none"), "mbit")
		for (c = 1; c <= ncaps; c++) {
			k = key(cell, cc, dir, tun, cap_list[c])
			if (!((k, "mbit") in vals)) continue
			line = sprintf("%-12s %-5s %7s %6s %6s %4s %5s %12s %12s %19s %19s %9s %9s", tun, caplabel(cap_list[c]),
				fmt(med(k, "mbit"), "%.1f"), fmt(ratio(med(k, "mbit"), base), "%.2f"), fmt(med(k, "cpu"), "%.0f"),
				fmt(med(k, "thr"), "%.0f"), fmt(med(k, "mach"), "%.0f"),
				pair(med(k, "cu"), med(k, "cs"), "%.2f"), pair(med(k, "su"), med(k, "ss"), "%.2f"),
				tun == "wanbond" ? ppc(k, "c") : "-", tun == "wanbond" ? ppc(k, "s") : "-",
				slash(med(k, "c_waits"), med(k, "s_waits"), "%.0f"), slash(med(k, "c_rss"), med(k, "s_rss"), "%.1f"))
			if (cycles) line = line sprintf(" %11s", slash(med(k, "c_cyc"), med(k, "s_cyc"), "%.1f"))
			print line
		}
		if (memmed(cell, cc, dir, tun, "c_rss_kb") == "") continue
		line = sprintf("   %s at the end of the cell: client VmRSS %s MB, VmHWM %s MB", tun,
			mb(memmed(cell, cc, dir, tun, "c_rss_kb")), mb(memmed(cell, cc, dir, tun, "c_hwm_kb")))
		if (tun == "wanbond")
			line = line sprintf(", packet buffers %s MB (peak %s MB)", mbb(memmed(cell, cc, dir, tun, "c_pool_b")), mbb(memmed(cell, cc, dir, tun, "c_pool_peak_b")))
		line = line sprintf("; server VmRSS %s MB, VmHWM %s MB", mb(memmed(cell, cc, dir, tun, "s_rss_kb")), mb(memmed(cell, cc, dir, tun, "s_hwm_kb")))
		if (tun == "wanbond")
			line = line sprintf(", packet buffers %s MB (peak %s MB)", mbb(memmed(cell, cc, dir, tun, "s_pool_b")), mbb(memmed(cell, cc, dir, tun, "s_pool_peak_b")))
		print line
	}
	if (cell != "one") {
		ref = ""
		for (c = 1; c <= ncaps; c++) {
			k = key("one", cc, dir, "wireguard-go", cap_list[c])
			if ((k, "mbit") in vals) ref = ref sprintf("%s %s %.1f", ref == "" ? "" : ",", caplabel(cap_list[c]), med(k, "mbit"))
		}
		k = key("one", cc, dir, "wireguard-go", "none")
		if (ref == "") print "   wireguard-go (one 100 Mbit/s uplink, for reference): not measured (cell one not run)"
		else printf "   wireguard-go (one 100 Mbit/s uplink, for reference): Mbit/s at%s; client %s s/GB uncapped\n", ref, pair(med(k, "cu"), med(k, "cs"), "%.2f")
	}
}

# chart CELL: its chart-CELL.dat (a row per cap, a column per series: wanbond, then wireguard-go) and a line of chart.list.
function chart(cell,    n, cd, i, j, c, nw, ns, sname, skey, file, line, wcell) {
	n = split(combos[cell], cd, " ")
	ns = 0
	for (i = 1; i <= n; i++) { split(cd[i], x, ":"); ns++; sname[ns] = "wanbond " x[1] " " x[2]; skey[ns] = cell SUBSEP x[1] SUBSEP x[2] SUBSEP "wanbond" }
	nw = ns
	for (i = 1; i <= n; i++) {
		split(cd[i], x, ":")
		if (!(("one", x[1], x[2]) in seen)) continue
		ns++; sname[ns] = "wireguard-go " (cell == "one" ? "" : "(one uplink) ") x[1] " " x[2]; skey[ns] = "one" SUBSEP x[1] SUBSEP x[2] SUBSEP "wireguard-go"
	}
	file = out "/chart-" cell ".dat"
	line = "cap"
	for (j = 1; j <= ns; j++) line = line "\t" sname[j]
	print line >file
	for (c = 1; c <= ncaps; c++) {
		line = caplabel(cap_list[c])
		for (j = 1; j <= ns; j++) line = line "\t" fmt(med(skey[j] SUBSEP cap_list[c], "mbit"), "%.2f")
		print line >file
	}
	close(file)
	printf "%s\t%d\t%d\t%s\n", cell, nw, ns, title[cell] >(out "/chart.list")
}

function verdict(ok, what, figures) {
	total++
	if (!ok) missed++
	printf "target %s %s: %s\n", what, ok ? "PASS" : "MISS", figures
}

function targets(    n, cd, i, k0, k25, ok, fig, r, w, g, cpu_w, cpu_g, mw, mg, p, path, val, side) {
	# 1. the 100+50 bond, the client at 25% of a core: at least 0.95 of its goodput uncapped.
	n = split(combos["b100_50"], cd, " "); ok = n > 0; fig = ""
	for (i = 1; i <= n; i++) {
		split(cd[i], x, ":")
		k0 = key("b100_50", x[1], x[2], "wanbond", "none"); k25 = key("b100_50", x[1], x[2], "wanbond", "25")
		r = ratio(med(k25, "mbit"), med(k0, "mbit"))
		if (!num(r)) { ok = 0; n = 0; break }
		ok = ok && r >= 0.95
		fig = fig sprintf("%s%s %s %.2f (%.1f of %.1f Mbit/s)", i > 1 ? ", " : "", x[1], x[2], r, med(k25, "mbit"), med(k0, "mbit"))
	}
	if (n) verdict(ok, "1 (100+50 bond, client at 25% of a core >= 0.95 of uncapped)", fig)
	else print "target 1 (100+50 bond, client at 25% of a core >= 0.95 of uncapped): not measured (needs cell b100_50, caps none and 25)"

	# 2. one uplink: the client's CPU per GB at most wireguard-go's (uncapped), and at 25% at least its goodput.
	n = split(combos["one"], cd, " "); ok = n > 0; fig = ""
	for (i = 1; i <= n; i++) {
		split(cd[i], x, ":")
		cpu_w = med(key("one", x[1], x[2], "wanbond", "none"), "ct"); cpu_g = med(key("one", x[1], x[2], "wireguard-go", "none"), "ct")
		mw = med(key("one", x[1], x[2], "wanbond", "25"), "mbit"); mg = med(key("one", x[1], x[2], "wireguard-go", "25"), "mbit")
		if (!num(cpu_w) || !num(cpu_g) || !num(mw) || !num(mg)) { n = 0; break }
		ok = ok && cpu_w <= cpu_g && mw >= mg
		fig = fig sprintf("%s%s %s client %.2f vs %.2f s/GB, at 25%% %.1f vs %.1f Mbit/s", i > 1 ? "; " : "", x[1], x[2], cpu_w, cpu_g, mw, mg)
	}
	if (n) verdict(ok, "2 (one uplink: wanbond client CPU/GB <= wireguard-go's uncapped, Mbit/s >= at 25%)", fig)
	else print "target 2 (one uplink: wanbond against wireguard-go): not measured (needs cell one, caps none and 25)"

	# 3. one uplink uncapped: at least 8 packets per call on the data's four paths.
	n = split(combos["one"], cd, " "); ok = n > 0; fig = ""
	for (i = 1; i <= n; i++) {
		split(cd[i], x, ":")
		k0 = key("one", x[1], x[2], "wanbond", "none")
		# The data's way: the sender's TUN read and UDP send, the receiver's UDP receive and TUN write.
		split(x[2] == "up" ? "c_tun_rd c_udp_tx s_udp_rx s_tun_wr" : "s_tun_rd s_udp_tx c_udp_rx c_tun_wr", path, " ")
		fig = fig sprintf("%s%s %s:", i > 1 ? "; " : "", x[1], x[2])
		for (p = 1; p <= 4; p++) {
			val = med(k0, path[p])
			if (!num(val)) { n = 0; break }
			ok = ok && val >= 8
			side = substr(path[p], 1, 1) == "c" ? "client" : "server"
			fig = fig sprintf("%s %s %s %.1f", p == 1 ? "" : ",", side, pname[substr(path[p], 3)], val)
		}
		if (!n) break
	}
	if (n) verdict(ok, "3 (packets per call >= 8 on the data's four paths, one uplink uncapped)", fig)
	else print "target 3 (packets per call >= 8): not measured (needs cell one, cap none)"
}

END {
	end_of_cells()
	printf "" >(out "/chart.list")
	for (i = 1; i <= ncells; i++) {
		cell = cell_order[i]
		n = split(combos[cell], cd, " ")
		for (j = 1; j <= n; j++) { split(cd[j], x, ":"); table(cell, x[1], x[2]) }
		if (n) chart(cell)
	}
	print ""
	targets()
	printf "targets: %d of %d met\n", total - missed, total
	exit (missed > 0)
}
