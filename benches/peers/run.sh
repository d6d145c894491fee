#!/usr/bin/env bash
# Runs the comparison with hecs and bevy_ecs twice, with the default compiler
# flags and with RUSTFLAGS="-C target-cpu=native", each build in its own
# target directory so neither rebuilds the other's, then summarises each
# run with report.py:
#
#   docs/peers-default.svg, docs/peers-native.svg   bar charts
#   docs/peers.md                                   medians and ratios
#
#   benches/peers/run.sh [CRITERION ARGS...]
#
# Arguments go to criterion, e.g. `--warm-up-time 1 --measurement-time 2`
# for a short run, or a filter such as `simple_iter`. PEERS_NOTE, if set, is
# added to the captions (say there how the machine was loaded). With
# PEERS_REPORT_ONLY=1 nothing is run: the reports are written again from the
# results the last run left in target/ (give the same arguments and note).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
docs="$root/docs"
mkdir -p "$docs"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

note="criterion arguments: ${*:-none (defaults)}"
if [[ -n "${PEERS_NOTE:-}" ]]; then
    note="$note. $PEERS_NOTE"
fi

# run NAME FLAGS [CRITERION ARGS...]: bench with RUSTFLAGS=FLAGS in
# target/NAME, then report.
run() {
    local name=$1 flags=$2
    shift 2
    local target="$here/target/$name"
    printf '\n==> RUSTFLAGS="%s" (target/%s)\n' "$flags" "$name"
    if [[ ${PEERS_REPORT_ONLY:-} != 1 ]]; then
        # Results of benchmarks that no longer exist must not reach the report.
        rm -rf "$target/criterion"
        (cd "$here" && CARGO_TARGET_DIR="$target" RUSTFLAGS="$flags" \
            cargo bench --bench peers -- "$@")
    fi
    python3 "$here/report.py" "$target" --flags "$flags" --note "$note" \
        --svg "$docs/peers-$name.svg" --markdown "$work/$name.md"
}

run default "" "$@"
run native "-C target-cpu=native" "$@"

{
    echo "# ecs, hecs, bevy_ecs (and gecs) side by side"
    echo
    echo "Written by \`benches/peers/run.sh\`; the charts are"
    echo "[peers-default.svg](peers-default.svg) and [peers-native.svg](peers-native.svg)."
    echo "Ratios are to the hand-written baseline of the same run. \"ours ÷ best"
    echo "comparable peer\" divides our median by the fastest hecs, bevy_ecs or gecs"
    echo "contender of the same sort: one that keeps its query across passes"
    echo "(named \`…_prepared\` or \`…_cached\`) for ours that does"
    echo "(\`ours_prepared\`), one that makes its query per pass (or has none)"
    echo "for the others; of all peers where that sort has none. The peer is"
    echo "named beside each ratio. Only frag_iter, where it matters (26 small"
    echo "tables), has both sorts; elsewhere \`bevy\` runs a \`QueryState\` made"
    echo "before timing (or a system), as ecs_bench_suite does. In simple_insert,"
    echo "\`ours\` spawns one entity at a time and is compared with \`hecs_spawn\`,"
    echo "\`bevy_spawn\` and \`gecs_spawn\`, which do too; \`ours_batch\` with hecs's"
    echo "and bevy's batch spawns; \`ours_reserved\` (after \`World::reserve\`) with"
    echo "\`gecs_reserved\` (gecs's \`with_capacity\`). gecs, a world declared at"
    echo "compile time as ours is, runs simple_insert only."
    echo
    cat "$work/default.md"
    echo
    cat "$work/native.md"
} >"$docs/peers.md"
printf '\nwrote %s, %s and %s\n' "$docs/peers-default.svg" "$docs/peers-native.svg" "$docs/peers.md"
