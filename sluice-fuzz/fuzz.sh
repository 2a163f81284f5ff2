#!/usr/bin/env bash
# Coverage-guided fuzzing of Sluice's inbound path (bytes -> u24 length splitter -> frame
# validator -> protocol engine) with Jazzer, in its JUnit fuzzing mode (JAZZER_FUZZ=1).
#
#   sluice-fuzz/fuzz.sh            # 60 s, what CI runs
#   sluice-fuzz/fuzz.sh 30m        # a longer run (Jazzer durations: 90s, 10m, 2h, "1h 30m")
#
# Seeds: src/test/resources/io/sluice/fuzz/InboundFuzzTestInputs/fuzzInbound/ (committed).
# Inputs that reach new coverage accumulate in sluice-fuzz/.cifuzz-corpus/ (not committed; kept
# between runs on the same machine). A failing input is saved as crash-<sha1> (a hang as
# timeout-<sha1>) into the inputs directory above and the script exits non-zero: minimize it
# (see README.md), move it to regressions/ under a descriptive name, and fix the bug.
#
# Environment: SLUICE_FUZZ_TIMEOUT (s, default 30) is libFuzzer's per-input time limit;
# SLUICE_FUZZ_MAX_LEN (default 8192) the largest input libFuzzer makes (larger corpus files are
# cut to it); SLUICE_FUZZ_SEED (default: random) fixes libFuzzer's seed, which CI does so that
# its run is reproducible; SLUICE_FUZZ_RUNS (default: none) ends the run after that many inputs
# (libFuzzer -runs), before the duration if it comes first: CI bounds its run by count, so that the
# run does the same work however much CPU it is given; SLUICE_FUZZ_ARGS adds further Maven
# arguments (e.g. -Djazzer.keep_going=5).
set -euo pipefail
cd "$(dirname "$0")/.."

duration="${1:-60s}"
timeout="${SLUICE_FUZZ_TIMEOUT:-30}"
max_len="${SLUICE_FUZZ_MAX_LEN:-8192}"
# libFuzzer's arguments, numbered from 0 without gaps (Jazzer reads them in order).
libfuzzer=(sluice-fuzz -timeout="$timeout" -max_len="$max_len")
[ -z "${SLUICE_FUZZ_SEED:-}" ] || libfuzzer+=(-seed="$SLUICE_FUZZ_SEED")
[ -z "${SLUICE_FUZZ_RUNS:-}" ] || libfuzzer+=(-runs="$SLUICE_FUZZ_RUNS")
internal=()
for i in "${!libfuzzer[@]}"; do internal+=("-Djazzer.internal.arg.$i=${libfuzzer[$i]}"); done

# The leak detector stays off while fuzzing: InboundHarness counts every buffer of each input
# itself (exactly, at once), and PARANOID records a stack trace on every buffer access, which
# costs most of the speed. Plain `./mvnw test` (regression mode) keeps PARANOID. LeakCheckExtension
# fails any run below PARANOID unless told that it is on purpose: sluice.leakCheck.allowLevel.
JAZZER_FUZZ=1 exec ./mvnw -B -pl sluice-fuzz -am test \
  -Dtest=InboundFuzzTest -Dsurefire.failIfNoSpecifiedTests=false \
  -Dsluice.test.argLine="-Dio.netty.leakDetection.level=disabled -Dsluice.leakCheck.allowLevel=disabled -Xmx1g -Xss4m" \
  -Djazzer.max_duration="$duration" \
  "${internal[@]}" \
  ${SLUICE_FUZZ_ARGS:-}
