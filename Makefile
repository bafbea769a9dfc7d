# etlconv / libetl — see README.md.  `make` builds, `make check` tests, `make sanitize` tests under
# ASan+UBSan, `make bench` measures throughput, `make install` installs.

CC        ?= cc
BUILD     ?= build
PREFIX    ?= /usr/local
DESTDIR   ?=
PKGS      := libxml-2.0 zlib libzstd libdeflate
OPTFLAGS  ?= -O3 -g
WARNFLAGS := -std=c11 -Wall -Wextra -Werror
# Recursive (=) so they are looked up when used, not when the Makefile is read: `make` then works in the
# same run that installed the packages (tests/ensure_deps.sh).
DEPCFLAGS  = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
DEPLIBS    = $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lcsv -lmspack -lpthread
CMOCKA_CFLAGS = $(shell pkg-config --cflags cmocka 2>/dev/null)
CMOCKA_LIBS   = $(or $(shell pkg-config --libs cmocka 2>/dev/null),-lcmocka)
DATADIR   := $(PREFIX)/share/etlconv
CPPFLAGS  += -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -Iinclude -Isrc \
             -DETL_BUNDLED_SCHEMA_DIR='"$(DATADIR)/schemas"'
ALL_CFLAGS = $(WARNFLAGS) $(OPTFLAGS) $(SANFLAGS) $(DEPCFLAGS) $(CPPFLAGS) $(CFLAGS)
ALL_LDFLAGS = $(SANFLAGS) $(LDFLAGS)

# Every library folder under src/ (and their subfolders, e.g. src/schema/wpp/) except the CLI and src/tools/
# (programs the build runs, e.g. the bundled-manifest compiler).
LIB_SRC     := $(sort $(shell find src -name '*.c' -not -path 'src/cli/*' -not -path 'src/tools/*'))
FORMATS_SRC := $(sort $(wildcard formats/*.c))
CLI_SRC     := $(sort $(wildcard src/cli/*.c))
TEST_SRC    := $(sort $(wildcard tests/test_*.c))
TEST_SUPPORT_SRC := $(sort $(wildcard tests/support/*.c))
FUZZ_SRC    := $(sort $(wildcard tests/fuzz/*.c))

# Generated sources (rules further down); listed here so the library picks them up.
GEN_SRC     := $(if $(wildcard src/schema/kernel_mof.tsv),$(BUILD)/gen/kernel_mof_table.c)
# WPP status-code names (issue 18): generated from mingw-w64-common's public-domain headers.
MINGW_INC   ?= /usr/share/mingw-w64/include
WPP_STATUS_HEADERS := $(MINGW_INC)/ntstatus.h $(MINGW_INC)/winerror.h $(MINGW_INC)/ddk/ndis.h $(MINGW_INC)/ntddndis.h
GEN_SRC     += $(BUILD)/gen/wpp_status_table.c

LIB_OBJ     := $(LIB_SRC:%.c=$(BUILD)/%.o) $(GEN_SRC:%.c=%.o)
FORMATS_OBJ := $(FORMATS_SRC:%.c=$(BUILD)/%.o)
CLI_OBJ     := $(CLI_SRC:%.c=$(BUILD)/%.o)
TEST_SUPPORT_OBJ := $(TEST_SUPPORT_SRC:%.c=$(BUILD)/%.o)
TEST_BIN    := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)

LIBETL      := $(BUILD)/libetl.a
LIBFORMATS  := $(BUILD)/libetlformats.a
ETLCONV     := $(BUILD)/etlconv

.PHONY: all check test sanitize bench install uninstall clean deps
.SECONDARY:
all: $(ETLCONV) $(LIBETL)
	@ln -sf $(ETLCONV) etlconv 2>/dev/null || true

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/gen/%.o: $(BUILD)/gen/%.c
	$(CC) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

# Kernel MOF classes: a readable text table, turned into C by an awk script (no hand-written C per event).
$(BUILD)/gen/kernel_mof_table.c: src/schema/kernel_mof.tsv src/schema/kernel_mof_gen.awk
	@mkdir -p $(dir $@)
	awk -f src/schema/kernel_mof_gen.awk src/schema/kernel_mof.tsv > $@.tmp && mv $@.tmp $@

# WPP status names (issue 18): every #define of ntstatus.h, winerror.h, ddk/ndis.h and ntddndis.h → sorted C
# tables (src/schema/wpp/wpp_status_gen.awk, wpp_status_emit.awk); `make` fails here without mingw-w64-common.
$(BUILD)/gen/wpp_status_table.c: $(WPP_STATUS_HEADERS) src/schema/wpp/wpp_status_gen.awk src/schema/wpp/wpp_status_emit.awk
	@mkdir -p $(dir $@)
	awk -f src/schema/wpp/wpp_status_gen.awk $(WPP_STATUS_HEADERS) | LC_ALL=C sort -k1,1 -k2,2 | \
	    awk -f src/schema/wpp/wpp_status_emit.awk > $@.tmp && mv $@.tmp $@

$(LIBETL): $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(LIBFORMATS): $(FORMATS_OBJ)
	@rm -f $@
	ar rcs $@ $^ $(if $(FORMATS_OBJ),,)

$(ETLCONV): $(CLI_OBJ) $(LIBFORMATS) $(LIBETL)
	$(CC) $(ALL_LDFLAGS) -o $@ $(CLI_OBJ) $(LIBFORMATS) $(LIBETL) $(DEPLIBS) -lm

$(BUILD)/tests/%.o: tests/%.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(CMOCKA_CFLAGS) -Itests -MMD -MP -c $< -o $@

$(BUILD)/tests/test_%: $(BUILD)/tests/test_%.o $(TEST_SUPPORT_OBJ) $(LIBFORMATS) $(LIBETL)
	$(CC) $(ALL_LDFLAGS) -o $@ $< $(TEST_SUPPORT_OBJ) $(LIBFORMATS) $(LIBETL) $(CMOCKA_LIBS) $(DEPLIBS) -lm

# issue 11: test_registry_growth counts the library's realloc calls (-Wl,--wrap=realloc).
$(BUILD)/tests/test_registry_growth: ALL_LDFLAGS += -Wl,--wrap=realloc

# `make check`: installs missing Debian packages if needed, builds, runs every cmocka test binary and the
# command-line tests, and prints one closing "N passed, N failed" line.
check: deps
	@$(MAKE) --no-print-directory build-tests
	@ETLCONV=$(ETLCONV) BUILD=$(BUILD) SANFLAGS="$(SANFLAGS)" sh tests/run_tests.sh $(TEST_BIN)
test: check

.PHONY: build-tests
build-tests: $(ETLCONV) $(LIBETL) $(TEST_BIN) $(BUILD)/bench/gen_trace $(BUILD)/bench/bench_run

# Benchmark input generator (tests/bench/gen_trace.c; issue 14): large traces from real ones.
$(BUILD)/bench/gen_trace: tests/bench/gen_trace.c $(LIBETL)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(LIBETL) $(DEPLIBS) -lm
$(BUILD)/bench/bench_run: tests/bench/bench_run.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $<

# Compiled bundled manifests (issue 14; src/schema/compiled_set.h, docs/schemas.md): each bundled manifest parsed
# once here by src/tools/schema_compile.c (the library's own parser), written as $(BUILD)/schemas-compiled/NAME.etlc,
# keyed on the manifest's bytes. Rebuilt whenever the library or a manifest changes; installed beside the schemas.
BUNDLED_MANIFESTS := $(sort $(wildcard src/schema/bundled/*.man src/schema/bundled/*.manifest src/schema/bundled/*.xml))
COMPILED_SCHEMAS  := $(BUILD)/schemas-compiled/.stamp
$(BUILD)/tools/schema_compile: src/tools/schema_compile.c $(LIBETL)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(LIBETL) $(DEPLIBS) -lm
$(COMPILED_SCHEMAS): $(BUILD)/tools/schema_compile $(BUNDLED_MANIFESTS)
	@mkdir -p $(dir $@)
	$(BUILD)/tools/schema_compile $(dir $@) $(BUNDLED_MANIFESTS) && touch $@
all build-tests: $(COMPILED_SCHEMAS)
.PHONY: install-compiled-schemas
install: install-compiled-schemas
install-compiled-schemas: $(COMPILED_SCHEMAS)
	install -d $(DESTDIR)$(DATADIR)/schemas-compiled
	if ls $(BUILD)/schemas-compiled/*.etlc >/dev/null 2>&1; then \
	    install -m 644 $(BUILD)/schemas-compiled/*.etlc $(DESTDIR)$(DATADIR)/schemas-compiled/; fi

sanitize:
	@$(MAKE) --no-print-directory check BUILD=build-san OPTFLAGS="-O1 -g -fno-omit-frame-pointer" \
	    SANFLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all"

deps:
	@sh tests/ensure_deps.sh

# `make fuzz`: libFuzzer targets tests/fuzz/*.c (clang), library built with ASan+UBSan into build-fuzz/.
.PHONY: fuzz fuzz-targets
fuzz:
	@$(MAKE) --no-print-directory fuzz-targets BUILD=build-fuzz CC=clang OPTFLAGS="-O1 -g" \
	    SANFLAGS="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all"
fuzz-targets: $(FUZZ_SRC:tests/%.c=$(BUILD)/%)
$(BUILD)/fuzz/%: tests/fuzz/%.c $(LIBFORMATS) $(LIBETL)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -fsanitize=fuzzer -o $@ $< $(LIBFORMATS) $(LIBETL) $(DEPLIBS) -lm

# issue 16: every record of every corpus trace read back by evtxexport and python-evtx (~10 min; make check
# does all records of the traces up to 20000 events and samples the larger ones).
.PHONY: check-evtx-full
check-evtx-full: $(ETLCONV)
	@ETLCONV=$(ETLCONV) sh tests/evtx_corpus_full.sh

bench: $(ETLCONV)
	@ETLCONV=$(ETLCONV) sh tests/bench.sh

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include/etl \
	    $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(DATADIR)/schemas
	install -m 755 $(ETLCONV) $(DESTDIR)$(PREFIX)/bin/etlconv
	install -m 644 $(LIBETL) $(DESTDIR)$(PREFIX)/lib/libetl.a
	install -m 644 $(LIBFORMATS) $(DESTDIR)$(PREFIX)/lib/libetlformats.a
	install -m 644 include/etl/*.h $(DESTDIR)$(PREFIX)/include/etl/
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|0.1.0|g' src/libetl.pc.in \
	    > $(DESTDIR)$(PREFIX)/lib/pkgconfig/libetl.pc
	if [ -f src/cli/etlconv.1 ]; then install -m 644 src/cli/etlconv.1 $(DESTDIR)$(PREFIX)/share/man/man1/; fi
	if ls src/schema/bundled/* >/dev/null 2>&1; then \
	    install -m 644 src/schema/bundled/* $(DESTDIR)$(DATADIR)/schemas/; fi

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/etlconv $(DESTDIR)$(PREFIX)/lib/libetl.a $(DESTDIR)$(PREFIX)/lib/libetlformats.a \
	    $(DESTDIR)$(PREFIX)/lib/pkgconfig/libetl.pc $(DESTDIR)$(PREFIX)/share/man/man1/etlconv.1
	rm -rf $(DESTDIR)$(PREFIX)/include/etl $(DESTDIR)$(DATADIR)

clean:
	rm -rf build build-san build-fuzz etlconv

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
