# windowjoin — PGXS build
#
#   make && make install          build and install into the PostgreSQL found by pg_config
#   make installcheck             run the pg_regress suites against a running server
#   make installcheck-parallel    the same, in the parallel groups of test/schedule
#
# Every .c file under src/ is part of the module and every sql/*.sql is a
# regression suite, so adding a file needs no Makefile edit.  src/ holds
# _PG_init, the GUCs and the planner hooks; src/nodes/<node>/ each custom
# scan node; src/parallel/ what splits work between parallel participants;
# src/common/ what every node uses; src/functions/ the SQL functions;
# src/continuous/ continuous window views (analysis, capture, scheduler).
# Only the repository's root is on the include path: the project's own
# headers are included by their path ("src/common/keys.h"), PostgreSQL's
# by theirs ("nodes/pathnodes.h"), so the two never shadow each other and a
# file's includes show what it depends on.

EXTENSION = windowjoin
MODULE_big = windowjoin
SRCDIRS = src src/common src/parallel src/functions src/continuous \
	$(sort $(wildcard src/nodes/*))
OBJS = $(patsubst %.c,%.o,$(sort $(foreach d,$(SRCDIRS),$(wildcard $(d)/*.c))))
PG_CPPFLAGS = -I.
DATA = $(sort $(wildcard windowjoin--*.sql))
PGFILEDESC = "windowjoin - time windows and time-aware joins"

REGRESS = $(patsubst sql/%.sql,%,$(sort $(wildcard sql/*.sql)))
REGRESS_OPTS = --inputdir=. --load-extension=windowjoin
# the same suites in parallel groups (scripts/test, CI)
REGRESS_SCHEDULE = test/schedule

# CI and scripts/test pass WERROR=1 to make every warning fatal.
ifdef WERROR
PG_CFLAGS += -Wall -Werror
endif

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# PGXS tracks no header dependencies (unless PostgreSQL was configured with
# --enable-depend): rebuild every object when any of our headers changes, so
# that a changed struct layout never meets an object (or the bitcode JIT
# inlines) compiled against the old one.
$(OBJS) $(OBJS:.o=.bc): $(foreach d,$(SRCDIRS),$(wildcard $(d)/*.h))

# Every suite, in the parallel groups of test/schedule (pg_regress runs a
# group's suites at once).
.PHONY: installcheck-parallel
installcheck-parallel: submake $(REGRESS_PREP)
	$(pg_regress_installcheck) $(REGRESS_OPTS) --schedule=$(REGRESS_SCHEDULE)
