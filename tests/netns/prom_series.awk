# The samples of a Prometheus text exposition, one per line as
# "NAME{LABEL="VALUE",...}<TAB>VALUE" with the labels sorted by name, so two
# exporters' outputs compare line by line whatever order each gives its
# labels in:  awk -f prom_series.awk FILE
# Expects a well-formed input (prom_check.awk): a label value's escapes are
# kept as they are; "," and "}" inside a value are passed over.

# Insertion sort of a[1..n] (mawk has no asort).
function sort(a, n,    i, j, t) {
	for (i = 2; i <= n; i++) {
		t = a[i]
		for (j = i - 1; j > 0 && a[j] > t; j--)
			a[j + 1] = a[j]
		a[j + 1] = t
	}
}

/^#/ || NF == 0 { next }

{
	line = $0
	brace = index(line, "{")
	space = index(line, " ")
	if (!brace || brace > space) {
		printf "%s{}\t%s\n", substr(line, 1, space - 1), substr(line, space + 1)
		next
	}
	name = substr(line, 1, brace - 1)
	n = 0
	i = brace + 1
	while (substr(line, i, 1) != "}") {
		start = i
		i = index(substr(line, i), "=\"") + i + 1
		while (substr(line, i, 1) != "\"")
			i += substr(line, i, 1) == "\\" ? 2 : 1
		labels[++n] = substr(line, start, i - start + 1)
		i++
		if (substr(line, i, 1) == ",")
			i++
	}
	sort(labels, n)
	text = ""
	for (k = 1; k <= n; k++)
		text = text (k > 1 ? "," : "") labels[k]
	value = substr(line, i + 2)
	sub(/ .*/, "", value)
	printf "%s{%s}\t%s\n", name, text, value
}
