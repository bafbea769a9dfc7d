/* Worker threads that outlive one run (issue 14): `--each -j N` converts file after file on the same N threads
 * instead of starting and joining N threads per file. A run hands every thread one function
 * (etl_worker_pool_run) and waits until all of them returned (etl_worker_pool_wait); between runs the threads
 * sleep on a condition variable and keep no state of the run (the pipeline's per-thread state is reset by
 * each run). */
#ifndef ETL_PIPELINE_WORKERS_H
#define ETL_PIPELINE_WORKERS_H

typedef struct etl_worker_pool etl_worker_pool;

/* Starts `threads` idle threads; NULL when one could not start (none is left running) or out of memory. */
etl_worker_pool *etl_worker_pool_new(unsigned threads);
unsigned etl_worker_pool_threads(const etl_worker_pool *pool);
/* Runs fn(arg, i) on thread i, for every thread, and returns at once. One run at a time: -1 while the
 * previous run has not been waited for. */
int etl_worker_pool_run(etl_worker_pool *pool, void (*fn)(void *arg, unsigned index), void *arg);
/* Returns when every thread returned from the current run's function (at once when there is none). */
void etl_worker_pool_wait(etl_worker_pool *pool);
/* Waits for the current run, stops and joins the threads. */
void etl_worker_pool_free(etl_worker_pool *pool);

#endif
