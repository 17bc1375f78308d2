// llama_requant IN.gguf OUT.gguf FTYPE: re-quantizes a model with llama.cpp's own quantizer
// (e.g. FTYPE 2 = Q4_0, 17 = Q5_K_M), to check weight types our fixtures' models lack.
#include "ggml-backend.h"
#include "llama.h"

#include <cstdio>
#include <cstdlib>

int main(int argc, char ** argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s IN.gguf OUT.gguf FTYPE\n", argv[0]);
        return 2;
    }
    if (const char * dir = getenv("LLAMA_DUMP_BACKENDS")) {
        ggml_backend_load_all_from_path(dir);
    } else {
        ggml_backend_load_all();
    }
    llama_backend_init();
    llama_model_quantize_params p = llama_model_quantize_default_params();
    p.ftype = (llama_ftype) atoi(argv[3]);
    p.allow_requantize = true;
    p.nthread = 2;
    return (int) llama_model_quantize(argv[1], argv[2], &p);
}
