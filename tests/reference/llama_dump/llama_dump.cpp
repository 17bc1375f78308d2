// llama_dump: runs a prompt (given as token ids) through llama.cpp's CPU backend exactly as
// tests/reference/llm_reference.mjs does through node-llama-cpp (n_ctx 512, one batch of up to
// 512 tokens, 2 threads, flash attention on, f16 KV cache), continues greedily, and optionally
// writes every named graph tensor (via the scheduler's eval callback) to a binary file, for
// comparing with `CpuLm::trace` layer by layer. Build: see README.md next to this file.
//
//   llama_dump MODEL --tokens 1,2,3 [--gen N] [--force 4,5,6] [--dump FILE] [--dump-evals K]
//              [--names SUBSTR,SUBSTR] [--threads T] [--ctx N] [--fa 0|1] [--top K]
//
// --force: teacher-forced continuation ids (evaluated one by one after the prompt instead of
//          greedy picks); the argmax at each step is still printed.
// Output (stdout, one JSON object): {"greedy":[...], "top":[[id,logit],...] of the first step}.
// Dump file records: u32 eval index, u16 name length, name bytes, i64 ne[4], f32 data
// (ggml order: ne0 fastest). Logits of every eval are recorded under the name "logits".

#include "ggml.h"
#include "ggml-backend.h"
#include "llama.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

struct dump_state {
    FILE * f = nullptr;
    uint32_t eval = 0;
    uint32_t max_evals = 1;
    std::vector<std::string> names; // empty: all
    std::vector<float> buf;
};

static bool wanted(const dump_state & st, const char * name) {
    if (!st.f || st.eval >= st.max_evals) return false;
    if (st.names.empty()) return true;
    for (const auto & n : st.names) {
        if (strstr(name, n.c_str())) return true;
    }
    return false;
}

static void write_record(dump_state & st, const char * name, const int64_t ne[4], const float * data, size_t n) {
    uint16_t len = (uint16_t) strlen(name);
    fwrite(&st.eval, 4, 1, st.f);
    fwrite(&len, 2, 1, st.f);
    fwrite(name, 1, len, st.f);
    fwrite(ne, 8, 4, st.f);
    fwrite(data, 4, n, st.f);
}

static bool cb_eval(struct ggml_tensor * t, bool ask, void * user) {
    auto * st = (dump_state *) user;
    if (ask) {
        return wanted(*st, t->name) && (t->type == GGML_TYPE_F32 || t->type == GGML_TYPE_F16);
    }
    if (!wanted(*st, t->name) || !(t->type == GGML_TYPE_F32 || t->type == GGML_TYPE_F16)) {
        return true;
    }
    const size_t n = ggml_nelements(t);
    st->buf.resize(n);
    // the CPU backend: data is host memory; walk strides (views may be non-contiguous)
    std::vector<uint8_t> raw;
    const uint8_t * base = (const uint8_t *) t->data;
    if (!ggml_backend_buffer_is_host(t->buffer)) {
        raw.resize(ggml_nbytes(t));
        ggml_backend_tensor_get(t, raw.data(), 0, raw.size());
        base = raw.data();
    }
    size_t k = 0;
    for (int64_t i3 = 0; i3 < t->ne[3]; i3++)
        for (int64_t i2 = 0; i2 < t->ne[2]; i2++)
            for (int64_t i1 = 0; i1 < t->ne[1]; i1++)
                for (int64_t i0 = 0; i0 < t->ne[0]; i0++) {
                    const uint8_t * p = base + i0 * t->nb[0] + i1 * t->nb[1] + i2 * t->nb[2] + i3 * t->nb[3];
                    st->buf[k++] = t->type == GGML_TYPE_F32 ? *(const float *) p : ggml_fp16_to_fp32(*(const ggml_fp16_t *) p);
                }
    write_record(*st, t->name, t->ne, st->buf.data(), n);
    return true;
}

static std::vector<int> parse_ids(const char * s) {
    std::vector<int> v;
    const char * p = s;
    while (*p) {
        char * end;
        long x = strtol(p, &end, 10);
        if (end == p) { p++; continue; }
        v.push_back((int) x);
        p = end;
    }
    return v;
}

static std::vector<std::string> split(const char * s) {
    std::vector<std::string> v;
    std::string cur;
    for (const char * p = s; ; p++) {
        if (*p == ',' || *p == 0) {
            if (!cur.empty()) v.push_back(cur);
            cur.clear();
            if (!*p) break;
        } else {
            cur += *p;
        }
    }
    return v;
}

static void null_log(enum ggml_log_level, const char *, void *) {}

int main(int argc, char ** argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s MODEL --tokens 1,2,3 [--gen N] [--force ids] [--dump FILE] [--dump-evals K] [--names a,b] [--threads T] [--ctx N] [--fa 0|1] [--top K]\n", argv[0]);
        return 2;
    }
    const char * model_path = argv[1];
    std::vector<int> prompt, force;
    int n_gen = 0, threads = 2, n_ctx = 512, fa = 1, top = 5;
    dump_state st;
    const char * dump_path = nullptr;
    bool verbose = false;
    for (int i = 2; i < argc; i++) {
        std::string a = argv[i];
        auto next = [&]() { if (i + 1 >= argc) { fprintf(stderr, "missing value for %s\n", a.c_str()); exit(2); } return argv[++i]; };
        if (a == "--tokens") prompt = parse_ids(next());
        else if (a == "--gen") n_gen = atoi(next());
        else if (a == "--force") force = parse_ids(next());
        else if (a == "--dump") dump_path = next();
        else if (a == "--dump-evals") st.max_evals = atoi(next());
        else if (a == "--names") st.names = split(next());
        else if (a == "--threads") threads = atoi(next());
        else if (a == "--ctx") n_ctx = atoi(next());
        else if (a == "--fa") fa = atoi(next());
        else if (a == "--top") top = atoi(next());
        else if (a == "-v") verbose = true;
        else { fprintf(stderr, "unknown argument %s\n", a.c_str()); return 2; }
    }
    if (prompt.empty()) { fprintf(stderr, "--tokens is required\n"); return 2; }
    if (!verbose) llama_log_set(null_log, nullptr);

    // node-llama-cpp's prebuilt libraries load the CPU backend variant at run time
    // (GGML_BACKEND_DL); LLAMA_DUMP_BACKENDS names their folder. Harmless for static builds.
    if (const char * dir = getenv("LLAMA_DUMP_BACKENDS")) {
        ggml_backend_load_all_from_path(dir);
    } else {
        ggml_backend_load_all();
    }
    llama_backend_init();
    llama_model_params mp = llama_model_default_params();
    mp.n_gpu_layers = 0;
    llama_model * model = llama_model_load_from_file(model_path, mp);
    if (!model) { fprintf(stderr, "cannot load %s\n", model_path); return 1; }
    const int n_vocab = llama_vocab_n_tokens(llama_model_get_vocab(model));

    if (dump_path) {
        st.f = fopen(dump_path, "wb");
        if (!st.f) { fprintf(stderr, "cannot write %s\n", dump_path); return 1; }
    }
    llama_context_params cp = llama_context_default_params();
    cp.n_ctx = n_ctx;
    cp.n_batch = 512;
    cp.n_ubatch = 512;
    cp.n_threads = threads;
    cp.n_threads_batch = threads;
    cp.no_perf = true;
    cp.swa_full = false;
    cp.flash_attn_type = fa ? LLAMA_FLASH_ATTN_TYPE_ENABLED : LLAMA_FLASH_ATTN_TYPE_DISABLED;
    if (st.f) {
        cp.cb_eval = cb_eval;
        cp.cb_eval_user_data = &st;
    }
    llama_context * ctx = llama_init_from_model(model, cp);
    if (!ctx) { fprintf(stderr, "cannot create context\n"); return 1; }

    auto record_logits = [&](const float * logits) {
        if (st.f && st.eval < st.max_evals) {
            int64_t ne[4] = {n_vocab, 1, 1, 1};
            write_record(st, "logits", ne, logits, n_vocab);
        }
    };
    auto argmax = [&](const float * l) {
        int best = 0;
        for (int i = 1; i < n_vocab; i++) if (l[i] > l[best]) best = i;
        return best;
    };

    std::vector<int> out;
    std::string top_json;
    {
        llama_batch batch = llama_batch_init((int) prompt.size(), 0, 1);
        for (size_t i = 0; i < prompt.size(); i++) {
            batch.token[i] = prompt[i];
            batch.pos[i] = (llama_pos) i;
            batch.n_seq_id[i] = 1;
            batch.seq_id[i][0] = 0;
            batch.logits[i] = i + 1 == prompt.size();
        }
        batch.n_tokens = (int) prompt.size();
        if (llama_decode(ctx, batch)) { fprintf(stderr, "decode failed\n"); return 1; }
        llama_batch_free(batch);
    }
    int pos = (int) prompt.size();
    const int steps = force.empty() ? n_gen : (int) force.size() + 1;
    for (int s = 0; s < steps; s++) {
        const float * l = llama_get_logits_ith(ctx, -1);
        record_logits(l);
        st.eval++;
        if (s == 0) {
            std::vector<int> idx(n_vocab);
            for (int i = 0; i < n_vocab; i++) idx[i] = i;
            std::partial_sort(idx.begin(), idx.begin() + top, idx.end(), [&](int a, int b) { return l[a] > l[b]; });
            char tmp[64];
            for (int i = 0; i < top; i++) {
                snprintf(tmp, sizeof tmp, "%s[%d,%.9g]", i ? "," : "", idx[i], l[idx[i]]);
                top_json += tmp;
            }
        }
        int next = argmax(l);
        out.push_back(next);
        if (s + 1 == steps) break;
        int feed = force.empty() ? next : force[s];
        llama_batch batch = llama_batch_init(1, 0, 1);
        batch.token[0] = feed;
        batch.pos[0] = pos++;
        batch.n_seq_id[0] = 1;
        batch.seq_id[0][0] = 0;
        batch.logits[0] = 1;
        batch.n_tokens = 1;
        if (llama_decode(ctx, batch)) { fprintf(stderr, "decode failed\n"); return 1; }
        llama_batch_free(batch);
    }
    printf("{\"greedy\":[");
    for (size_t i = 0; i < out.size(); i++) printf("%s%d", i ? "," : "", out[i]);
    printf("],\"top\":[%s]}\n", top_json.c_str());
    if (st.f) fclose(st.f);
    llama_free(ctx);
    llama_model_free(model);
    return 0;
}
