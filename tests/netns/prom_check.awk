# Checks Prometheus's text exposition format (0.0.4), as promtool's
# `check metrics` would parse it, and the conventions wanbond keeps:
#   awk [-v need_help=1] -f prom_check.awk FILE
# Prints "LINE: what is wrong" for each fault, exits 1 if there was one.
#   - a line is a "# HELP NAME TEXT", a "# TYPE NAME TYPE", another comment,
#     or a sample: NAME[{LABEL="VALUE",...}] VALUE [TIMESTAMP]
#   - names as the format has them; label values escaped (\\, \", \n only)
#   - HELP and TYPE at most once per family (need_help: HELP for each),
#     before its samples; a family's samples together, named as its TYPE;
#     no series twice; no label twice in a sample
#   - a value is a float (or NaN, +Inf, -Inf); a counter's is not negative,
#     and its name ends in _total
# Written for mawk (Debian's awk) as much as for gawk: no gawk extensions.

function fault(msg) {
	printf "%d: %s: %s\n", NR, msg, $0
	faults++
}

function is_name(s) {
	return s ~ /^[a-zA-Z_:][a-zA-Z0-9_:]*$/
}

function is_float(s) {
	return s ~ /^[-+]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][-+]?[0-9]+)?$/ || s ~ /^(NaN|[-+]?Inf)$/
}

# A new family starts: the one before it is closed for good.
function open_family(name) {
	if (name == current)
		return
	if (name in closed)
		fault("family " name " again after another one")
	if (current != "")
		closed[current] = 1
	current = name
}

# The labels of a sample, from just past "{": sets label_end to the index past "}";
# returns them as text for the duplicate-series check ("{}" for none), or "" on a fault.
function read_labels(s, start,    i, c, lname, seen, text, j) {
	i = start
	text = ""
	split("", seen)
	while (substr(s, i, 1) != "}") {
		j = i
		while (substr(s, j, 1) ~ /[a-zA-Z0-9_]/)
			j++
		lname = substr(s, i, j - i)
		if (!is_name(lname) || lname ~ /:/) {
			fault("a label name expected at column " i)
			return ""
		}
		if (lname in seen) {
			fault("label " lname " twice")
			return ""
		}
		seen[lname] = 1
		if (substr(s, j, 2) != "=\"") {
			fault("=\" expected after label " lname)
			return ""
		}
		i = j + 2
		text = text lname "=\""
		for (;;) {
			c = substr(s, i, 1)
			if (c == "") {
				fault("label " lname ": its value is not closed")
				return ""
			}
			if (c == "\"")
				break
			if (c == "\\") {
				c = substr(s, i + 1, 1)
				if (c != "\\" && c != "\"" && c != "n") {
					fault("label " lname ": an escape other than \\\\, \\\" or \\n")
					return ""
				}
				text = text "\\" c
				i += 2
				continue
			}
			text = text c
			i++
		}
		text = text "\","
		i++
		c = substr(s, i, 1)
		if (c == ",")
			i++
		else if (c != "}") {
			fault(", or } expected after label " lname)
			return ""
		}
	}
	label_end = i + 1
	return text == "" ? "{}" : text
}

/^#/ {
	if ($2 == "HELP" || $2 == "TYPE") {
		if (!is_name($3)) {
			fault("a metric name expected after # " $2)
			next
		}
		if (($2 SUBSEP $3) in declared) {
			fault($2 " of " $3 " twice")
			next
		}
		declared[$2, $3] = 1
		open_family($3)
		if ($3 in sampled)
			fault($2 " of " $3 " after its samples")
		if ($2 == "TYPE") {
			if (NF != 4 || $4 !~ /^(counter|gauge|histogram|summary|untyped)$/)
				fault("a type expected")
			type[$3] = $4
			if ($4 == "counter" && $3 !~ /_total$/)
				fault("counter " $3 " not named _total")
		} else if (NF < 4)
			fault("HELP with no text")
	}
	next
}

{
	line = $0
	match(line, /^[a-zA-Z_:][a-zA-Z0-9_:]*/)
	if (RSTART != 1) {
		fault("a metric name expected")
		next
	}
	name = substr(line, 1, RLENGTH)
	rest = RLENGTH + 1
	labels = "{}"
	if (substr(line, rest, 1) == "{") {
		labels = read_labels(line, rest + 1)
		if (labels == "")
			next
		rest = label_end
	}
	n = split(substr(line, rest), parts, " ")
	if (substr(line, rest, 1) != " " || n < 1 || n > 2) {
		fault("one space, a value and an optional timestamp expected after the labels")
		next
	}
	if (!is_float(parts[1]))
		fault("value '" parts[1] "' is not a number")
	if (n == 2 && parts[2] !~ /^-?[0-9]+$/)
		fault("timestamp '" parts[2] "' is not an integer")
	if (!(name in type))
		fault("sample of " name " before its TYPE")
	else if (type[name] == "counter" && parts[1] ~ /^-/)
		fault("counter " name " negative")
	open_family(name)
	sampled[name] = 1
	if ((name labels) in series)
		fault("series twice")
	series[name labels] = 1
	samples++
}

END {
	if (need_help)
		for (k in type)
			if (!(("HELP" SUBSEP k) in declared)) {
				printf "family %s has no HELP\n", k
				faults++
			}
	exit (faults > 0)
}
