/* The walk's plan paths (src/decode/walk_plan.c: plain integers inline, top-level arrays of them in one pass,
 * runs of plain scalars in one loop) against the general walk (no plan), over every event of every corpus
 * trace: the same status, error, consumed bytes, fields (kind, name, value text, types, depth, index,
 * property, value bytes), top-level spans and text. Each event is also walked cut short (one byte, half its
 * payload), where runs and arrays no longer fit and the plan must step aside exactly as the general walk
 * reports. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "decode/walk.h"
#include "support/corpus.h"

#define PLAN_SLOTS 64u

typedef struct plan_slot {
    uint64_t serial;
    etl_walk_plan plan;
} plan_slot;

typedef struct compare_ctx {
    etl_walk general, planned;
    plan_slot plans[PLAN_SLOTS];
    uint64_t events, walks, runs, mismatches;
} compare_ctx;

static const etl_walk_plan *plan_of(compare_ctx *c, const etl_event_info *info)
{
    plan_slot *slot = &c->plans[info->serial % PLAN_SLOTS];
    if (slot->serial != info->serial || !slot->serial) {
        etl_walk_plan_free(&slot->plan);
        assert_int_equal(etl_walk_plan_build(&slot->plan, info), 0);
        slot->serial = info->serial;
    }
    return &slot->plan;
}

static int same_text(const char *a, const char *b) { return a == b || (a && b && strcmp(a, b) == 0); }

static void report(compare_ctx *c, const etl_event_info *info, size_t size, const char *what)
{
    if (c->mismatches++ < 10)
        print_error("%s/%s (%zu payload bytes): %s differs\n", info->provider_name ? info->provider_name : "?",
                    info->event_name ? info->event_name : "?", size, what);
}

static void compare_walks(compare_ctx *c, const etl_event_info *info, const uint8_t *payload, size_t size,
                          const etl_render_context *ctx)
{
    const etl_walk_plan *plan = plan_of(c, info);
    int a = etl_walk_event(&c->general, info, payload, size, ctx);
    int b = etl_walk_event_planned(&c->planned, info, plan, payload, size, ctx);
    const etl_walk *g = &c->general, *p = &c->planned;
    c->walks++;
    if (a != b) {
        report(c, info, size, "status");
        return;
    }
    if (a < 0) return;
    if (g->field_count != p->field_count) {
        report(c, info, size, "field count");
        return;
    }
    if (g->consumed != p->consumed) {
        report(c, info, size, "consumed");
        return;
    }
    if (strcmp(g->error, p->error) != 0) {
        report(c, info, size, "error");
        return;
    }
    for (size_t i = 0; i < g->field_count; i++) {
        const etl_field *x = &g->fields[i], *y = &p->fields[i];
        if (x->kind != y->kind || !same_text(x->name, y->name) || !same_text(x->value, y->value) ||
            x->in_type != y->in_type || x->out_type != y->out_type || x->depth != y->depth ||
            x->array_index != y->array_index || x->property != y->property || g->bytes[i].data != p->bytes[i].data ||
            g->bytes[i].size != p->bytes[i].size)
            {
        report(c, info, size, "a field");
        return;
    }
    }
    if (a == ETL_DECODE_OK) {
        uint32_t tops = info->top_level_count <= info->property_count ? info->top_level_count : info->property_count;
        for (uint32_t i = 0; i <= tops; i++)
            if (g->top_first[i] != p->top_first[i] || g->top_text[i] != p->top_text[i])
                {
        report(c, info, size, "a top-level span");
        return;
    }
        if (g->text.length != p->text.length || memcmp(g->text.data, p->text.data, g->text.length) != 0)
            {
        report(c, info, size, "the text");
        return;
    }
    }
    /* the sizing walk (filtered events) with and without the plan */
    int sa = etl_walk_event_sized(&c->general, info, NULL, payload, size, ctx);
    size_t consumed = c->general.consumed;
    int sb = etl_walk_event_sized(&c->planned, info, plan, payload, size, ctx);
    if (sa != sb || (sa == ETL_DECODE_OK && consumed != c->planned.consumed)) report(c, info, size, "the sizing walk");
}

static void on_event(const etl_decoded_event *ev, void *ctx_)
{
    compare_ctx *c = ctx_;
    const etl_event_info *info = ev->info;
    if (!info || ev->string_only) return;
    const etl_event_record *rec = ev->record;
    const uint8_t *payload = rec->user_data;
    size_t size = payload ? rec->user_data_length : 0;
    etl_render_context ctx = {rec->pointer_size, NULL, rec->file_index, NULL};
    c->events++;
    const etl_walk_plan *plan = plan_of(c, info);
    if (plan->run && plan->run[0]) c->runs++;
    compare_walks(c, info, payload, size, &ctx);
    if (size && c->events % 3 == 0) { /* cut short: one byte, and half */
        compare_walks(c, info, payload, size - 1, &ctx);
        compare_walks(c, info, payload, size / 2, &ctx);
    }
}

static void test_planned_walk_equals_general_walk_on_corpus(void **state)
{
    (void)state;
    static compare_ctx c;
    etl_walk_init(&c.general);
    etl_walk_init(&c.planned);
    assert_true(corpus_decode_all(on_event, &c) >= 20);
    for (size_t i = 0; i < PLAN_SLOTS; i++) etl_walk_plan_free(&c.plans[i].plan);
    etl_walk_free(&c.general);
    etl_walk_free(&c.planned);
    print_message("%llu events, %llu walks compared; %llu events start with a run of plain scalars\n",
                  (unsigned long long)c.events, (unsigned long long)c.walks, (unsigned long long)c.runs);
    assert_true(c.events > 500000);
    assert_true(c.runs > 100000); /* the run path was exercised (PerfInfo samples, CLR methods...) */
    assert_int_equal(c.mismatches, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_planned_walk_equals_general_walk_on_corpus),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
