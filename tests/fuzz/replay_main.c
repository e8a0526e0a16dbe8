// SPDX-License-Identifier: MIT
/*
 * Replays fuzz inputs without libFuzzer: every file named on the command line,
 * or every file in a directory named there, goes through the harness once.
 * `make check` runs the committed corpora and crash reproducers this way,
 * under the sanitizers, with gcc.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0, got;

	if (!f) {
		perror(path);
		return -1;
	}
	do {
		if (len == cap) {
			uint8_t *nb = realloc(buf, cap = cap ? cap * 2 : 4096);

			if (!nb) {
				free(buf);
				fclose(f);
				return -1;
			}
			buf = nb;
		}
		got = fread(buf + len, 1, cap - len, f);
		len += got;
	} while (got);
	fclose(f);
	LLVMFuzzerTestOneInput(buf, len);
	free(buf);
	return 0;
}

static int replay_dir(const char *dir, int *count)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	char path[4096];

	if (!d) {
		perror(dir);
		return -1;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (replay_file(path)) {
			closedir(d);
			return -1;
		}
		(*count)++;
	}
	closedir(d);
	return 0;
}

int main(int argc, char **argv)
{
	int count = 0;

	for (int i = 1; i < argc; i++) {
		struct stat st;

		if (stat(argv[i], &st)) {
			perror(argv[i]);
			return 1;
		}
		if (S_ISDIR(st.st_mode) ? replay_dir(argv[i], &count) : replay_file(argv[i]))
			return 1;
		if (!S_ISDIR(st.st_mode))
			count++;
	}
	printf("%s: %d inputs replayed\n", argv[0], count);
	return 0;
}
