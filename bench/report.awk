# Turns the results of scripts/bench into the report: reads results.tsv
# (see bench/run_pg.sh for its columns) and writes, into the files named by
# the variables md (Markdown tables), dat (gnuplot data) and summary (text
# for the terminal), the timing table with the ratios windowjoin / each
# alternative, the memory table, the checksum check and the targets.
# Files: md (timing table), mdmem, mdck, mdtgt, dat, datw (time per number
# of parallel workers of the windowjoin query: 0, 1, 2), summary.
# Variables: factor (DEVICES / SLICE for slice rows), slicepct.
# Exit status 1 when a checksum group disagrees.
BEGIN {
	FS = "\t"
	nw = split("W1 W1-scan W1-date_bin W1-date_trunc W1-item W2 W3 W3-64MB W4 W5-inner W5-left W5-inner-ix W5-left-ix W6-tumble W6-hop W7", wls, " ")
	nc = split("wj wj2 off pg0 pg2 duck1 duck2", cls, " ")
	desc["W1"] = "W1 tumble 1 min, sum per window"
	desc["W1-scan"] = "W1 data: count(*), the scan alone"
	desc["W1-date_bin"] = "W1 written with date_bin, node on / off"
	desc["W1-date_trunc"] = "W1 written with date_trunc, node on / off"
	desc["W1-item"] = "W1 tumble 1 hour per item (720k groups)"
	desc["W2"] = "W2 hop 10 min / 1 min, sum per window"
	desc["W3"] = "W3 session 5 min per item, sum per session"
	desc["W3-64MB"] = "W3 at work_mem = 64MB"
	desc["W4"] = "W4 as-of join, orders x rate versions"
	desc["W5-inner"] = "W5 interval join +-2 s, inner, no index"
	desc["W5-left"] = "W5 interval join +-2 s, LEFT, no index"
	desc["W5-inner-ix"] = "W5 interval join +-2 s, inner, (dev, t) index"
	desc["W5-left-ix"] = "W5 interval join +-2 s, LEFT, (dev, t) index"
	desc["W6-tumble"] = "W6 window join TUMBLE 5 min, FULL OUTER"
	desc["W6-hop"] = "W6 window join HOP 10 min / 1 min, INNER"
	desc["W7"] = "W7 nearest as-of join, orders x rate versions"
	idiom["W1"] = "GROUP BY date_bin"
	idiom["W1-scan"] = "SELECT count(*)"
	idiom["W1-date_bin"] = "-"
	idiom["W1-date_trunc"] = "-"
	idiom["W1-item"] = "GROUP BY date_bin, item"
	idiom["W2"] = "LATERAL generate_series"
	idiom["W3"] = "gaps-and-islands (lag + running sum)"
	idiom["W3-64MB"] = idiom["W3"]
	idiom["W4"] = "LATERAL ... ORDER BY ... LIMIT 1 + btree"
	idiom["W5-inner"] = "hash join on dev + band filter"
	idiom["W5-left"] = idiom["W5-inner"]
	idiom["W5-inner-ix"] = "the planner's join with the (dev, t) index"
	idiom["W5-left-ix"] = idiom["W5-inner-ix"]
	idiom["W6-tumble"] = "FULL JOIN on date_bin"
	idiom["W6-hop"] = "JOIN of generate_series-expanded rows"
	idiom["W7"] = "the same LATERAL ... ORDER BY t <-> t LIMIT 1, KNN over a GiST (currency, time) index"
	split("W1 tumble|W1 count(*)|W1 date_bin|W1 date_trunc|W1 per item|W2 hop|W3 session|W3 session, 64MB|W4 as-of|W5 inner|W5 left|W5 inner, index|W5 left, index|W6 tumble|W6 hop|W7 nearest", cl, "|")
	for (i = 1; i <= nw; i++) chart[wls[i]] = cl[i]
	head["wj"] = "windowjoin"; head["wj2"] = "windowjoin, 2 workers"
	head["off"] = "same query, nodes off"
	head["pg0"] = "PostgreSQL idiom, 0 workers"; head["pg2"] = "PostgreSQL idiom, 2 workers"
	head["duck1"] = "DuckDB, 1 thread"; head["duck2"] = "DuckDB, 2 threads"
}
function norm(s,   n, p, i, out) {
	n = split(s, p, "|")
	out = ""
	for (i = 1; i <= n; i++) {
		if (p[i] ~ /\./) { sub(/0+$/, "", p[i]); sub(/\.$/, "", p[i]) }
		out = out (i > 1 ? "|" : "") p[i]
	}
	return out
}
# bound(wl): the most a 2-worker plan of workload wl can gain in this run,
# from its serial time S, the probe's capacity C and the empty Gather's
# time E (bench/run_pg.sh): S / (S / C + E)
function bound(wl,   s) {
	s = T[wl SUBSEP "wj"]
	if (!(wl in CAP) || !(wl in GATHER) || s <= 0 || CAP[wl] <= 0)
		return ""
	return sprintf("; an empty 2-worker Gather took %.0f ms, so a split of the serial %.0f ms gains at most %.2f x here", GATHER[wl], s, s / (s / CAP[wl] + GATHER[wl]))
}
function fmt(ms) { return ms >= 100 ? sprintf("%.0f", ms) : sprintf("%.1f", ms) }
# the probe's line (bench/run_pg.sh): the machine's capacity for two
# processes, per round of a workload's interleaved configurations
$2 == "cap" { CAP[$1] = $5; CAPS[$1] = $8; next }
# ... and the time of an empty 2-worker Gather in those rounds
$2 == "gather" { GATHER[$1] = $5; next }
{
	wl = $1; c = $2; g = $3
	key = wl SUBSEP c
	ms = $5 * ($4 == "slice" ? factor : 1)
	T[key] = ms; RAW[key] = $5; RUNS[key] = $6; SIZE[key] = $4; TIMES[key] = $8
	HWM[key] = $10; SHM[key] = $11
	ck = norm($9)
	if (!(g in CK)) { CK[g] = ck; CKWHO[g] = wl "/" c; gorder[++ng] = g }
	else if (CK[g] != ck) { BAD[g] = BAD[g] sprintf("  %s/%s: %s  vs  %s: %s\n", wl, c, ck, CKWHO[g], CK[g]) }
	NCK[g]++
}
function cell(wl, c,   key, s, note) {
	key = wl SUBSEP c
	if (!(key in T)) {
		if (c == "off" && (wl ~ /^W4|^W5/)) return "= idiom (same query)"
		return "-"
	}
	s = fmt(T[key]) " ms"
	note = ""
	if (SIZE[key] == "slice") note = note sprintf("%s%% slice x%g, ", slicepct, factor)
	if (RUNS[key] == 1) note = note "1 run, "
	if (RUNS[key] == 0) note = note "1 run, no warm-up, "
	if (note != "") { sub(/, $/, "", note); s = (SIZE[key] == "slice" ? "~" : "") s " (" note ")" }
	if (c != "wj" && ((wl SUBSEP "wj") in T) && T[key] > 0)
		s = s sprintf(" **%.3g**", T[wl SUBSEP "wj"] / T[key])
	return s
}
function speedup(wl, c) { return T[wl SUBSEP c] / T[wl SUBSEP "wj"] }
# a target on T[wl, num] / T[wl, den], skipped when either was not measured
function ptarget(name, wl, num, den, goal, detail) {
	if (!((wl SUBSEP num) in T) || !((wl SUBSEP den) in T) || T[wl SUBSEP den] <= 0) return
	target(name, T[wl SUBSEP num] / T[wl SUBSEP den], ">=", goal, detail)
}
function target(name, val, op, goal, detail,   ok, verdict) {
	if ((val "") ~ /nan|inf/) return	# a workload that did not run (--only)
	ok = (op == "<=") ? (val <= goal) : (val >= goal)
	verdict = ok ? "met" : "NOT met"
	if (!ok && op == ">=" && goal == 1 && val >= 0.95) verdict = "NOT met (within 5 %)"
	printf "| %s | %s %s | %.2f | %s | %s |\n", name, op, goal, val, verdict, detail >> md
	printf "  %-52s %6.2f (%s %s)  %s\n", name, val, op, goal, verdict >> summary
}
END {
	status = 0
	print "| workload | " head["wj"] " | " head["wj2"] " | " head["off"] " | " head["pg0"] " | " head["pg2"] " | " head["duck1"] " | " head["duck2"] " |" > md
	print "|---|---:|---:|---:|---:|---:|---:|---:|" >> md
	for (i = 1; i <= nw; i++) {
		wl = wls[i]
		line = "| " desc[wl] " |"
		for (j = 1; j <= nc; j++) line = line " " cell(wl, cls[j]) " |"
		print line >> md
		line = sprintf("%-12s", wl)
		for (j = 1; j <= nc; j++) {
			key = wl SUBSEP cls[j]
			line = line sprintf(" %10s", (key in T) ? fmt(T[key]) (RUNS[key] == 1 ? "*" : RUNS[key] == 0 ? "!" : "") (SIZE[key] == "slice" ? "~" : "") : "-")
		}
		for (j = 2; j <= nc; j++) {
			key = wl SUBSEP cls[j]
			line = line sprintf(" %7s", ((key in T) && ((wl SUBSEP "wj") in T)) ? sprintf("%.3g", T[wl SUBSEP "wj"] / T[key]) : "-")
		}
		tab[i] = line
		# chart data: seconds, "-" when missing
		line = "\"" chart[wl] "\""
		for (j = 1; j <= nc; j++) {
			key = wl SUBSEP cls[j]
			line = line " " ((key in T) ? sprintf("%.4f", T[key] / 1000) : "-")
		}
		print line > dat
	}
	printf "%-12s %10s %10s %10s %10s %10s %10s %10s | wj/wj2  wj/off  wj/pg0  wj/pg2 wj/duck1 wj/duck2\n", "ms", "wj", "wj2", "off", "pg0", "pg2", "duck1", "duck2" > summary
	for (i = 1; i <= nw; i++) print tab[i] >> summary
	print "  (* one timed run after the warm-up; ! the warm-up was the one run; ~ timed on a slice and scaled)" >> summary

	md = mdmem
	print "| workload | windowjoin | windowjoin, 2 workers (leader only) | same query, nodes off | PostgreSQL idiom, 0 workers | PostgreSQL idiom, 2 workers (leader only) |" > md
	print "|---|---:|---:|---:|---:|---:|" >> md
	for (i = 1; i <= nw; i++) {
		wl = wls[i]
		line = "| " wl " |"
		for (j = 1; j <= 5; j++) {
			key = wl SUBSEP cls[j]
			if ((key in T) && HWM[key] != "")
				line = line sprintf(" %.0f MB (%.0f) |", (HWM[key] - SHM[key]) / 1024, HWM[key] / 1024)
			else line = line " - |"
		}
		print line >> md
	}

	md = mdck
	print "| checksum group | configurations | checksum | agree |" > md
	print "|---|---:|---|---|" >> md
	for (i = 1; i <= ng; i++) {
		g = gorder[i]
		printf "| %s | %d | `%s` | %s |\n", g, NCK[g], CK[g], (g in BAD) ? "**NO**" : "yes" >> md
		if (g in BAD) { status = 1; printf "CHECKSUM MISMATCH in %s:\n%s", g, BAD[g] >> summary }
	}
	if (status == 0) printf "checksums: all %d groups agree across every engine\n", ng >> summary

	md = mdtgt
	print "| target | goal | ratio | verdict | how |" > md
	print "|---|---|---:|---|---|" >> md
	print "targets (ratio = alternative time / windowjoin time unless noted):" >> summary
	target("tumble: speed-up over date_bin", speedup("W1", "pg0"), ">=", 4, "W1, 0 workers")
	target("tumble: time / count(*) time", T["W1" SUBSEP "wj"] / T["W1-scan" SUBSEP "pg0"], "<=", 2.5, "W1 / W1-scan, 0 workers")
	target("tumble 1 hour per item: speed-up over PostgreSQL", speedup("W1-item", "pg0"), ">=", 4, sprintf("W1-item, 0 workers (nodes off: %.2f)", speedup("W1-item", "off")))
	target("date_bin written by a user: speed-up with the node", speedup("W1-date_bin", "off"), ">=", 4, "W1-date_bin, 0 workers")
	target("date_trunc written by a user: speed-up with the node", speedup("W1-date_trunc", "off"), ">=", 4, "W1-date_trunc, 0 workers")
	target("hop: speed-up over generate_series", speedup("W2", "pg0"), ">=", 1.5, "W2, 0 workers")
	target("session: speed-up over gaps-and-islands", speedup("W3", "pg0"), ">=", 3, "W3, 0 workers")
	target("session at work_mem 64MB: speed-up over gaps-and-islands", speedup("W3-64MB", "pg0"), ">=", 3, "W3 at work_mem = 64MB, 0 workers")
	target("as-of: speed-up over LATERAL + btree", speedup("W4", "pg0"), ">=", 10, "W4, 0 workers")
	target("band join, inner, no index: speed-up", speedup("W5-inner", "pg0"), ">=", 20, "W5, PostgreSQL timed on a " slicepct "% slice of the devices x" factor)
	target("band join, LEFT, no index: speed-up", speedup("W5-left", "pg0"), ">=", 20, "W5, PostgreSQL timed on a " slicepct "% slice of the devices x" factor)
	target("band join, inner, (dev, t) index: speed-up", speedup("W5-inner-ix", "pg0"), ">=", 1, sprintf("W5, 0 workers (2 workers: %.2f)", speedup("W5-inner-ix", "pg2")))
	target("band join, LEFT, (dev, t) index: speed-up", speedup("W5-left-ix", "pg0"), ">=", 1, sprintf("W5, 0 workers (2 workers: %.2f)", speedup("W5-left-ix", "pg2")))
	b = T["W6-tumble" SUBSEP "pg0"]; if (T["W6-tumble" SUBSEP "off"] < b) b = T["W6-tumble" SUBSEP "off"]
	target("window join TUMBLE: speed-up over PostgreSQL", b / T["W6-tumble" SUBSEP "wj"], ">=", 1.5, "W6, the faster of idiom and nodes off, 0 workers, plan chosen by the planner")
	b = T["W6-hop" SUBSEP "pg0"]; if (T["W6-hop" SUBSEP "off"] < b) b = T["W6-hop" SUBSEP "off"]
	target("window join HOP: speed-up over PostgreSQL", b / T["W6-hop" SUBSEP "wj"], ">=", 3, "W6, the faster of idiom and nodes off, 0 workers")
	target("nearest as-of: speed-up over KNN + GiST", speedup("W7", "pg0"), ">=", 10, "W7, 0 workers (windowjoin without the index)")

	# parallel query (docs/parallel.md): the node with 2 workers
	np = split("W1 W1-item W2 W3 W4 W5-inner W5-left W6-hop W6-tumble", pw, " ")
	for (i = 1; i <= np; i++)
		ptarget(pw[i] " with 2 workers: speed-up over serial", pw[i], "wj", "wj2", 1.6, "windowjoin 0 workers / 2 workers" \
			((pw[i] in CAP) ? sprintf("; two processes ran at %.2f x one in these rounds (probe: %s)", CAP[pw[i]], CAPS[pw[i]]) : "") \
			bound(pw[i]))
	for (i = 1; i <= np; i++)
		ptarget(pw[i] " with 2 workers: speed-up over PostgreSQL 2 workers", pw[i], "pg2", "wj2", 1, "PostgreSQL idiom, 2 workers" (pw[i] ~ /^W5/ ? ", slice x" factor : ""))
	split("W4 W5-inner W5-left W6-hop", pd, " ")
	for (i = 1; i <= 4; i++)
		ptarget(pd[i] " with 2 workers: speed-up over DuckDB 2 threads", pd[i], "duck2", "wj2", 1, "DuckDB, 2 threads" (pd[i] ~ /^W5/ ? ", slice x" factor : ""))
	# time per number of workers, for the chart
	for (i = 1; i <= nw; i++) {
		wl = wls[i]
		if (!((wl SUBSEP "wj2") in T)) continue
		line = "\"" chart[wl] "\""
		split("wj wj1 wj2", wc, " ")
		for (j = 1; j <= 3; j++)
			line = line " " (((wl SUBSEP wc[j]) in T) ? sprintf("%.4f", T[wl SUBSEP wc[j]] / 1000) : "-")
		print line > datw
	}
	exit status
}
