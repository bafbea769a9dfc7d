/* gzip members on worker threads, or libzstd's stream (see compress.h). The members are deflated by
 * libdeflate, whose whole-buffer API fits blocks compressed whole: at level 1 it compressed etlconv's XML at
 * 1.7-2.6x zlib's fastest level's speed, 7 % smaller (BENCHMARKS.md, stop 41). */
#include "pipeline/compress.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libdeflate.h>
#include <zstd.h>

#define COMPRESS_BLOCK (1u << 20)

typedef struct block {
    unsigned char *in, *out;
    size_t in_len, out_len, out_cap;
    int done, failed;
} block;

struct etl_compressor {
    etl_compression kind;
    int level, fd, failed_errno;
    /* zstd */
    ZSTD_CCtx *zc;
    unsigned char *zout;
    size_t zout_cap;
    /* gzip */
    int threads;
    size_t nblocks;
    block *blocks;
    uint64_t submitted, taken, written;  /* block sequence numbers; slot = sequence % nblocks */
    uint64_t members;                    /* gzip members written */
    struct libdeflate_compressor *here;  /* the caller's, when no worker runs */
    pthread_t *workers;
    size_t started;
    pthread_mutex_t mu;
    pthread_cond_t work_cv, done_cv;
    int stop;
};

static int write_all(int fd, const unsigned char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static int fail(etl_compressor *c, int err)
{
    if (!c->failed_errno) c->failed_errno = err ? err : EIO;
    errno = c->failed_errno;
    return -1;
}

/* One complete gzip member of b->in, with the calling thread's compressor (NULL: out of memory). */
static void deflate_block(block *b, struct libdeflate_compressor *z)
{
    b->failed = 1;
    if (!z) return;
    size_t need = libdeflate_gzip_compress_bound(z, b->in_len);
    if (need > b->out_cap) {
        unsigned char *p = realloc(b->out, need);
        if (!p) return;
        b->out = p;
        b->out_cap = need;
    }
    b->out_len = libdeflate_gzip_compress(z, b->in, b->in_len, b->out, b->out_cap);
    b->failed = b->out_len == 0;  /* 0: did not fit, which the bound rules out */
}

static void *worker(void *arg)
{
    etl_compressor *c = arg;
    struct libdeflate_compressor *z = libdeflate_alloc_compressor(c->level);  /* one per thread */
    pthread_mutex_lock(&c->mu);
    for (;;) {
        while (!c->stop && c->taken == c->submitted) pthread_cond_wait(&c->work_cv, &c->mu);
        if (c->taken == c->submitted) break; /* stopping and nothing queued */
        block *b = &c->blocks[c->taken++ % c->nblocks];
        pthread_mutex_unlock(&c->mu);
        deflate_block(b, z);
        pthread_mutex_lock(&c->mu);
        b->done = 1;
        pthread_cond_broadcast(&c->done_cv);
    }
    pthread_mutex_unlock(&c->mu);
    libdeflate_free_compressor(z);
    return NULL;
}

/* Writes the oldest block in flight, waiting for its worker. */
static int write_oldest(etl_compressor *c)
{
    block *b = &c->blocks[c->written % c->nblocks];
    if (c->started) {
        pthread_mutex_lock(&c->mu);
        while (!b->done) pthread_cond_wait(&c->done_cv, &c->mu);
        pthread_mutex_unlock(&c->mu);
    }
    c->written++;
    b->done = 0;
    b->in_len = 0;
    if (b->failed) return fail(c, EIO);
    c->members++;
    return write_all(c->fd, b->out, b->out_len) == 0 ? 0 : fail(c, errno);
}

/* Hands the block being filled to a worker (or compresses it here without workers). */
static int submit(etl_compressor *c)
{
    if (!c->started) {
        deflate_block(&c->blocks[c->submitted++ % c->nblocks], c->here);
        c->taken = c->submitted;
        return write_oldest(c);
    }
    pthread_mutex_lock(&c->mu);
    c->submitted++;
    pthread_cond_signal(&c->work_cv);
    pthread_mutex_unlock(&c->mu);
    if (c->submitted - c->written == c->nblocks) return write_oldest(c); /* every slot busy: drain one */
    return 0;
}

etl_compressor *etl_compressor_new(etl_compression kind, int level, int threads, int fd)
{
    etl_compressor *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->kind = kind;
    c->fd = fd;
    c->threads = threads < 1 ? 1 : threads;
    if (kind == ETL_COMPRESS_ZSTD) {
        c->level = level ? level : ETL_ZSTD_DEFAULT_LEVEL;
        c->zc = ZSTD_createCCtx();
        c->zout_cap = ZSTD_CStreamOutSize();
        c->zout = malloc(c->zout_cap);
        if (!c->zc || !c->zout || ZSTD_isError(ZSTD_CCtx_setParameter(c->zc, ZSTD_c_compressionLevel, c->level))) {
            etl_compressor_free(c);
            return NULL;
        }
        if (c->threads > 1) ZSTD_CCtx_setParameter(c->zc, ZSTD_c_nbWorkers, c->threads); /* no-op without MT */
        return c;
    }
    c->level = level ? level : ETL_GZIP_DEFAULT_LEVEL;
    if (c->level > ETL_GZIP_MAX_LEVEL) {  /* before any thread starts: a worker would fail every block */
        free(c);
        errno = EINVAL;
        return NULL;
    }
    c->nblocks = c->threads > 1 ? 2 * (size_t)c->threads : 1;
    c->blocks = calloc(c->nblocks, sizeof *c->blocks);
    if (!c->blocks) {
        free(c);
        return NULL;
    }
    for (size_t i = 0; i < c->nblocks; i++) {
        if (!(c->blocks[i].in = malloc(COMPRESS_BLOCK))) {
            etl_compressor_free(c);
            return NULL;
        }
    }
    if (c->threads > 1) {
        pthread_mutex_init(&c->mu, NULL);
        pthread_cond_init(&c->work_cv, NULL);
        pthread_cond_init(&c->done_cv, NULL);
        c->workers = calloc((size_t)c->threads, sizeof *c->workers);
        if (!c->workers) {
            etl_compressor_free(c);
            return NULL;
        }
        for (int i = 0; i < c->threads; i++) {
            if (pthread_create(&c->workers[i], NULL, worker, c) != 0) break;
            c->started++;
        }
        if (c->started == 0) { /* no thread could start: compress in the caller's thread */
            free(c->workers);
            c->workers = NULL;
        }
    }
    if (!c->started && !(c->here = libdeflate_alloc_compressor(c->level))) {
        etl_compressor_free(c);
        return NULL;
    }
    return c;
}

int etl_compressor_write(etl_compressor *c, const void *data, size_t length)
{
    if (c->failed_errno) return fail(c, c->failed_errno);
    const unsigned char *p = data;
    if (c->kind == ETL_COMPRESS_ZSTD) {
        ZSTD_inBuffer in = {p, length, 0};
        while (in.pos < in.size) {
            ZSTD_outBuffer out = {c->zout, c->zout_cap, 0};
            size_t r = ZSTD_compressStream2(c->zc, &out, &in, ZSTD_e_continue);
            if (ZSTD_isError(r)) return fail(c, EIO);
            if (write_all(c->fd, c->zout, out.pos) != 0) return fail(c, errno);
        }
        return 0;
    }
    while (length > 0) {
        block *b = &c->blocks[c->submitted % c->nblocks];
        size_t room = COMPRESS_BLOCK - b->in_len, n = length < room ? length : room;
        memcpy(b->in + b->in_len, p, n);
        b->in_len += n;
        p += n;
        length -= n;
        if (b->in_len == COMPRESS_BLOCK && submit(c) != 0) return -1;
    }
    return 0;
}

int etl_compressor_finish(etl_compressor *c)
{
    if (c->failed_errno) return fail(c, c->failed_errno);
    if (c->kind == ETL_COMPRESS_ZSTD) {
        ZSTD_inBuffer in = {NULL, 0, 0};
        size_t left;
        do {
            ZSTD_outBuffer out = {c->zout, c->zout_cap, 0};
            left = ZSTD_compressStream2(c->zc, &out, &in, ZSTD_e_end);
            if (ZSTD_isError(left)) return fail(c, EIO);
            if (write_all(c->fd, c->zout, out.pos) != 0) return fail(c, errno);
        } while (left != 0);
        return 0;
    }
    block *b = &c->blocks[c->submitted % c->nblocks];
    /* the last partial block; an empty output still gets one (empty) member, which gzip -d accepts */
    if ((b->in_len > 0 || (c->members == 0 && c->submitted == 0)) && submit(c) != 0) return -1;
    while (c->written < c->submitted)
        if (write_oldest(c) != 0) return -1;
    return 0;
}

void etl_compressor_free(etl_compressor *c)
{
    if (!c) return;
    if (c->started) {
        pthread_mutex_lock(&c->mu);
        c->stop = 1;
        pthread_cond_broadcast(&c->work_cv);
        pthread_mutex_unlock(&c->mu);
        for (size_t i = 0; i < c->started; i++) pthread_join(c->workers[i], NULL);
    }
    if (c->threads > 1) {
        pthread_mutex_destroy(&c->mu);
        pthread_cond_destroy(&c->work_cv);
        pthread_cond_destroy(&c->done_cv);
    }
    free(c->workers);
    for (size_t i = 0; c->blocks && i < c->nblocks; i++) {
        free(c->blocks[i].in);
        free(c->blocks[i].out);
    }
    free(c->blocks);
    libdeflate_free_compressor(c->here);
    ZSTD_freeCCtx(c->zc);
    free(c->zout);
    free(c);
}
