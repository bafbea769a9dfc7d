/* Worker threads that outlive one run (see workers.h). */
#include "pipeline/workers.h"

#include <pthread.h>
#include <stdlib.h>

typedef struct pool_thread {
    etl_worker_pool *pool;
    unsigned index;
    pthread_t thread;
} pool_thread;

struct etl_worker_pool {
    pthread_mutex_t mu;
    pthread_cond_t start_cv;  /* a run began, or the pool is closing */
    pthread_cond_t done_cv;   /* a thread finished the run */
    void (*fn)(void *arg, unsigned index);
    void *arg;
    unsigned long run;        /* runs begun; each thread does each once */
    unsigned busy;            /* threads still in the current run */
    int closing;
    unsigned threads, started;
    pool_thread *list;
};

static void *pool_main(void *arg)
{
    pool_thread *t = arg;
    etl_worker_pool *p = t->pool;
    unsigned long done = 0;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (!p->closing && p->run == done) pthread_cond_wait(&p->start_cv, &p->mu);
        if (p->run == done) break;  /* closing, nothing left to do */
        done = p->run;
        void (*fn)(void *, unsigned) = p->fn;
        void *fn_arg = p->arg;
        pthread_mutex_unlock(&p->mu);
        fn(fn_arg, t->index);
        pthread_mutex_lock(&p->mu);
        if (--p->busy == 0) pthread_cond_broadcast(&p->done_cv);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

etl_worker_pool *etl_worker_pool_new(unsigned threads)
{
    etl_worker_pool *p = calloc(1, sizeof *p);
    if (!p || !threads || !(p->list = calloc(threads, sizeof *p->list))) {
        free(p);
        return NULL;
    }
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->start_cv, NULL);
    pthread_cond_init(&p->done_cv, NULL);
    p->threads = threads;
    for (unsigned i = 0; i < threads; i++) {
        p->list[i] = (pool_thread){p, i, 0};
        if (pthread_create(&p->list[i].thread, NULL, pool_main, &p->list[i]) != 0) {
            etl_worker_pool_free(p);
            return NULL;
        }
        p->started++;
    }
    return p;
}

unsigned etl_worker_pool_threads(const etl_worker_pool *p) { return p ? p->threads : 0; }

int etl_worker_pool_run(etl_worker_pool *p, void (*fn)(void *arg, unsigned index), void *arg)
{
    pthread_mutex_lock(&p->mu);
    int rc = p->busy ? -1 : 0;
    if (rc == 0) {
        p->fn = fn;
        p->arg = arg;
        p->busy = p->threads;
        p->run++;
        pthread_cond_broadcast(&p->start_cv);
    }
    pthread_mutex_unlock(&p->mu);
    return rc;
}

void etl_worker_pool_wait(etl_worker_pool *p)
{
    pthread_mutex_lock(&p->mu);
    while (p->busy) pthread_cond_wait(&p->done_cv, &p->mu);
    pthread_mutex_unlock(&p->mu);
}

void etl_worker_pool_free(etl_worker_pool *p)
{
    if (!p) return;
    pthread_mutex_lock(&p->mu);
    while (p->busy) pthread_cond_wait(&p->done_cv, &p->mu);
    p->closing = 1;
    pthread_cond_broadcast(&p->start_cv);
    pthread_mutex_unlock(&p->mu);
    for (unsigned i = 0; i < p->started; i++) pthread_join(p->list[i].thread, NULL);
    pthread_cond_destroy(&p->start_cv);
    pthread_cond_destroy(&p->done_cv);
    pthread_mutex_destroy(&p->mu);
    free(p->list);
    free(p);
}
