/* Record digests for tests that compare two ways of reading one trace (record_digest.h). */
#include "support/record_digest.h"

#include <setjmp.h>
#include <stdarg.h>
#include <string.h>

#include <cmocka.h>

void record_digest_init(record_digest *d) { *d = (record_digest){0, 14695981039346656037ull, 0}; }

void record_digest_mix(record_digest *d, const void *data, size_t n)
{
    const uint8_t *p = data;
    for (size_t i = 0; i < n; i++) d->hash = (d->hash ^ p[i]) * 1099511628211ull;
}

#define MIX(d, v) record_digest_mix((d), &(v), sizeof(v))

int record_digest_record(const etl_event_record *r, void *ctx)
{
    record_digest *d = ctx;
    const etl_event_header *h = &r->header;
    d->records++;
    MIX(d, h->size);
    MIX(d, h->flags);
    MIX(d, h->thread_id);
    MIX(d, h->process_id);
    MIX(d, h->timestamp);
    MIX(d, h->provider_id);
    MIX(d, h->descriptor.id);
    MIX(d, h->descriptor.opcode);
    MIX(d, h->processor_time);
    MIX(d, h->activity_id);
    MIX(d, r->kind);
    MIX(d, r->raw_timestamp);
    MIX(d, r->file_index);
    MIX(d, r->file_offset);
    MIX(d, r->record_offset);
    MIX(d, r->buffer_context.processor_index);
    MIX(d, r->user_data_length);
    if (r->user_data) record_digest_mix(d, r->user_data, r->user_data_length);
    for (uint16_t i = 0; i < r->extended_data_count; i++) {
        MIX(d, r->extended_data[i].ext_type);
        record_digest_mix(d, r->extended_data[i].data, r->extended_data[i].data_size);
    }
    return 0;
}

void record_digest_diagnostic(const etl_diagnostic *diag, void *ctx)
{
    record_digest *d = ctx;
    d->diagnostics++;
    record_digest_mix(d, diag->message, strlen(diag->message));
}

void record_digest_assert_same(const record_digest *a, const record_digest *b, const char *what, const char *file)
{
    if (a->records != b->records || a->hash != b->hash || a->diagnostics != b->diagnostics)
        fail_msg("%s: %s: %llu records, %llu diagnostics vs %llu, %llu (or different bytes)", file, what,
                 (unsigned long long)a->records, (unsigned long long)a->diagnostics,
                 (unsigned long long)b->records, (unsigned long long)b->diagnostics);
}
