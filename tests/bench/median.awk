# median(list): the median of the numbers in a space-separated list ("" for
# none), for the benchmarks' tables scripts, which awk reads after this one
# (awk -f tests/bench/median.awk -f tests/bench/NAME_tables.awk).
function median(list,    n, v, i, j, t) {
	n = split(list, v, " ")
	if (!n) return ""
	for (i = 2; i <= n; i++) {
		t = v[i] + 0
		for (j = i - 1; j >= 1 && v[j] + 0 > t; j--) v[j + 1] = v[j]
		v[j + 1] = t
	}
	return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
}
