#!/usr/bin/env bash
# Times what a user of schemecs waits for when building a game of the usual
# size (benches/compile/game: one schema of 64 components, 20 systems), or the
# same game on hecs (benches/peers/compile_hecs). See README.md beside this.
#
# Usage: benches/compile/run.sh [--quick] [--runs N] [--profile dev|release]
#                               [--keep] [ours|hecs]
#
#   ours|hecs   which game to build (default: ours)
#   --quick     run each measurement once (the same as --runs 1)
#   --runs N    run each measurement N times and report the median and the
#               range (default: 3)
#   --profile P measure one profile only (default: dev, then release)
#   --keep      keep the temporary directory (the copy of the game, its target
#               directory and the logs) and say where it is
#
# The game is copied into a temporary directory outside the repository, with
# a target directory of its own, so nothing in a checkout is built or
# changed; its dependency on schemecs points at this checkout's ecs/. The
# report (a markdown table) goes to stdout, progress to stderr. Any failed
# build stops the script with the end of that build's log.
set -euo pipefail
# Decimal points, whatever the locale (bash's time, awk and printf agree).
export LC_ALL=C

die() {
    echo "run.sh: $*" >&2
    exit 1
}

say() {
    echo "run.sh: $*" >&2
}

usage() {
    sed -n '6,16p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
}

runs=3
profiles=(dev release)
keep=0
which=ours
while [ $# -gt 0 ]; do
    case "$1" in
        --quick) runs=1 ;;
        --runs)
            [ $# -ge 2 ] || die "--runs needs a number"
            runs=$2
            shift
            ;;
        --profile)
            [ $# -ge 2 ] || die "--profile needs dev or release"
            profiles=("$2")
            shift
            ;;
        --keep) keep=1 ;;
        -h | --help)
            usage
            exit 0
            ;;
        ours | hecs) which=$1 ;;
        *) die "unknown argument '$1' (try --help)" ;;
    esac
    shift
done
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || die "--runs takes a positive number, not '$runs'"
for profile in "${profiles[@]}"; do
    case "$profile" in
        dev | release) ;;
        *) die "--profile takes dev or release, not '$profile'" ;;
    esac
done

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
case "$which" in
    ours) source_dir=$here/game ;;
    hecs) source_dir=$repo/benches/peers/compile_hecs ;;
esac
[ -f "$source_dir/Cargo.toml" ] || die "no game at $source_dir"
bin=$(sed -n 's/^name = "\(.*\)"$/\1/p' "$source_dir/Cargo.toml" | head -n 1)
[ -n "$bin" ] || die "no package name in $source_dir/Cargo.toml"
command -v cargo >/dev/null || die "cargo is not on PATH"

# Settings from the environment that would change what is measured: a
# compiler wrapper (sccache) would serve builds from its cache, flags and
# profile overrides would build something else than a user's default build.
for var in RUSTFLAGS CARGO_ENCODED_RUSTFLAGS CARGO_BUILD_RUSTFLAGS RUSTC_WRAPPER \
    RUSTC_WORKSPACE_WRAPPER CARGO_BUILD_RUSTC_WRAPPER CARGO_INCREMENTAL CARGO_TARGET_DIR \
    CARGO_BUILD_TARGET_DIR RUSTC_BOOTSTRAP $(compgen -e | grep '^CARGO_PROFILE_' || true); do
    if [ -n "${!var+set}" ]; then
        say "ignoring $var=${!var}"
        unset "$var"
    fi
done

work=$(mktemp -d "${TMPDIR:-/tmp}/schemecs-compile.XXXXXX")
case "$work/" in
    "$repo"/*) die "the temporary directory $work is inside the repository; set TMPDIR elsewhere" ;;
esac
cleanup() {
    if [ "$keep" = 1 ]; then
        say "kept $work"
    else
        rm -rf "$work"
    fi
}
trap cleanup EXIT

game=$work/game
mkdir -p "$game"
cp -R "$source_dir/Cargo.toml" "$source_dir/src" "$game/"
[ -f "$source_dir/Cargo.lock" ] && cp "$source_dir/Cargo.lock" "$game/"
if [ "$which" = ours ]; then
    sed -i "s#path = \"../../../ecs\"#path = \"$repo/ecs\"#" "$game/Cargo.toml"
    grep -qF "path = \"$repo/ecs\"" "$game/Cargo.toml" ||
        die "could not point the game's schemecs dependency at $repo/ecs"
fi
main=$game/src/main.rs
pristine=$work/main.rs.pristine
cp "$main" "$pristine"
for marker in EDIT-ME NEW-COMPONENT; do
    [ "$(grep -c "// $marker" "$main")" = 1 ] || die "$main must have exactly one '// $marker' line"
done
if [ "$which" = ours ]; then
    [ "$(grep -c "// LAST-FIELD" "$main")" = 1 ] || die "$main must have exactly one '// LAST-FIELD' line"
fi

export CARGO_TARGET_DIR=$work/target
manifest=(--manifest-path "$game/Cargo.toml")
log=$work/build.log
: >"$log"

# The registry first: offline if everything is already downloaded, else
# once online; every build after that is offline, so no network time is
# measured.
if cargo fetch --offline "${manifest[@]}" >>"$log" 2>&1; then
    say "dependencies found in the local registry"
else
    say "fetching dependencies"
    cargo fetch "${manifest[@]}" >>"$log" 2>&1 || {
        tail -n 30 "$log" >&2
        die "cargo fetch failed"
    }
fi

# measure PROFILE: one `cargo build`, timed; sets `wall` and `cpu` (user +
# system seconds of cargo and everything it ran: rustc, build scripts, the
# linker). Stops the script if the build fails, or if it did not compile
# the game (an edit that cargo did not see would time nothing).
measure() {
    local profile=$1 times user sys one_log=$work/last-build.log
    local TIMEFORMAT='%3R %3U %3S'
    if ! times=$({ time cargo build --offline "${manifest[@]}" --profile "$profile" \
        >"$one_log" 2>&1; } 2>&1); then
        cat "$one_log" >>"$log"
        tail -n 40 "$one_log" >&2
        die "cargo build --profile $profile failed (the log above)"
    fi
    cat "$one_log" >>"$log"
    grep -q "Compiling $bin " "$one_log" || die "cargo build --profile $profile did not rebuild $bin"
    read -r wall user sys <<<"$times"
    cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.3f", u + s }')
}

# summary VALUES...: "median (min-max)", or the value alone for one run.
summary() {
    local sorted
    mapfile -t sorted < <(printf '%s\n' "$@" | sort -g)
    local n=${#sorted[@]} median
    median=${sorted[$((n / 2))]}
    if [ $((n % 2)) = 0 ]; then
        median=$(awk -v a="${sorted[$((n / 2 - 1))]}" -v b="$median" 'BEGIN { print (a + b) / 2 }')
    fi
    if [ "$n" = 1 ]; then
        printf '%.1f' "$median"
    else
        printf '%.1f (%.1f-%.1f)' "$median" "${sorted[0]}" "${sorted[$((n - 1))]}"
    fi
}

# The edits.
edit_constant() { # VALUE: the constant on the line after `// EDIT-ME`
    sed -i "/\/\/ EDIT-ME/{n;s/= [0-9][0-9]*;/= $1;/}" "$main"
    grep -A1 "// EDIT-ME" "$main" | grep -q "= $1;" || die "could not edit the constant after // EDIT-ME"
}
add_component() { # N: a component type ExtraN, spawned on the props
    printf '\npub struct Extra%s(pub u32);\n' "$1" >>"$main"
    sed -i "/\/\/ NEW-COMPONENT/a\\        Extra$1($1)," "$main"
    if [ "$which" = ours ]; then
        sed -i "/\/\/ LAST-FIELD/a\\    extra_$1: Extra$1," "$main"
    fi
    grep -q "Extra$1($1)," "$main" || die "could not add a component"
}

declare -A result
uptime_before=$(uptime)
started=$SECONDS
for profile in "${profiles[@]}"; do
    cp "$pristine" "$main"
    walls=() cpus=()
    for ((run = 1; run <= runs; run++)); do
        rm -rf "$CARGO_TARGET_DIR"
        say "$profile: clean build $run/$runs"
        measure "$profile"
        walls+=("$wall") cpus+=("$cpu")
    done
    result[clean,$profile]="$(summary "${walls[@]}") | $(summary "${cpus[@]}")"

    walls=() cpus=()
    for ((run = 1; run <= runs; run++)); do
        say "$profile: touch rebuild $run/$runs"
        touch "$main"
        measure "$profile"
        walls+=("$wall") cpus+=("$cpu")
    done
    result[touch,$profile]="$(summary "${walls[@]}") | $(summary "${cpus[@]}")"

    walls=() cpus=()
    for ((run = 1; run <= runs; run++)); do
        say "$profile: one-system edit $run/$runs"
        edit_constant $((30 + run))
        measure "$profile"
        walls+=("$wall") cpus+=("$cpu")
    done
    result[edit,$profile]="$(summary "${walls[@]}") | $(summary "${cpus[@]}")"

    # Each run adds one component to the same built state (so each is the
    # same change), then goes back to it with a build that is not timed.
    base=$work/main.rs.base
    cp "$main" "$base"
    walls=() cpus=()
    for ((run = 1; run <= runs; run++)); do
        say "$profile: add a component $run/$runs"
        add_component "$run"
        measure "$profile"
        walls+=("$wall") cpus+=("$cpu")
        cp "$base" "$main"
        if [ "$run" -lt "$runs" ]; then
            say "$profile: back to the state before (not timed)"
            measure "$profile"
        fi
    done
    result[field,$profile]="$(summary "${walls[@]}") | $(summary "${cpus[@]}")"
done
cp "$pristine" "$main"

# Sizes: what the compiler gets from the macros, and what it gives LLVM.
# The source as rustc prints it (no comments, its own layout) before and
# after macro expansion: the same printer, so the two counts compare.
# `-Zunpretty` is unstable; RUSTC_BOOTSTRAP=1 lets a stable rustc take it.
pretty_lines() { # MODE: normal (as parsed) or expanded
    local out=$work/$1.rs
    RUSTC_BOOTSTRAP=1 cargo rustc --offline "${manifest[@]}" --profile=check --bin "$bin" \
        -- -Zunpretty="$1" >"$out" 2>>"$log" || {
        tail -n 30 "$log" >&2
        die "cargo rustc -- -Zunpretty=$1 failed"
    }
    wc -l <"$out"
}
say "printing the game's source before and after macro expansion (-Zunpretty)"
source_lines=$(wc -l <"$pristine")
parsed_lines=$(pretty_lines normal)
expanded_lines=$(pretty_lines expanded)

llvm=$work/llvm-lines.txt
if cargo llvm-lines --version >/dev/null 2>&1; then
    say "counting LLVM IR lines (cargo llvm-lines --release)"
    cargo llvm-lines --offline "${manifest[@]}" --release --bin "$bin" >"$llvm" 2>>"$log" || {
        tail -n 30 "$log" >&2
        die "cargo llvm-lines failed"
    }
    ir_lines=$(awk '$NF == "(TOTAL)" { print $1; exit }' "$llvm")
    ir_copies=$(awk '$NF == "(TOTAL)" { print $2; exit }' "$llvm")
    [ -n "$ir_lines" ] || die "no (TOTAL) line in the output of cargo llvm-lines ($llvm)"
else
    say "cargo llvm-lines is not installed (cargo install cargo-llvm-lines): no IR figures"
    ir_lines=n/a ir_copies=n/a
fi
uptime_after=$(uptime)
elapsed=$((SECONDS - started))

schemecs_commit=$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)
if [ -n "$(git -C "$repo" status --porcelain -- ecs ecs-macros 2>/dev/null)" ]; then
    schemecs_commit="$schemecs_commit, with uncommitted changes in ecs/ or ecs-macros/"
fi
case "$which" in
    ours) subject="schemecs (benches/compile/game)" ;;
    hecs) subject="hecs (benches/peers/compile_hecs)" ;;
esac

# row LABEL KEY: a row of the table, with a wall and a CPU column per profile.
row() {
    local line="| $1 |" profile
    for profile in "${profiles[@]}"; do
        case "$2" in
            header) line+=" $profile wall | $profile CPU |" ;;
            rule) line+=" --- | --- |" ;;
            *) line+=" ${result[$2,$profile]} |" ;;
        esac
    done
    echo "$line"
}

cat <<EOF

## Compile time of a user's game on $subject

$(rustc --version), $(nproc) cores, schemecs at $schemecs_commit.
Seconds; each figure is the median of $runs run(s), with the range in
parentheses. CPU is user + system time of cargo and all it ran.
Load before: \`${uptime_before#*load average: }\`; after: \`${uptime_after#*load average: }\`
(1, 5, 15 minutes). The measurements took ${elapsed} s.

$(row build header)
$(row --- rule)
$(row "clean (dependencies included)" clean)
$(row "touch src/main.rs" touch)
$(row "edit one system" edit)
$(row "add a component" field)

| size of the game crate | lines |
| --- | --- |
| source (src/main.rs, comments included) | $source_lines |
| as rustc prints it, before macro expansion (\`-Zunpretty=normal\`) | $parsed_lines |
| as rustc prints it, after macro expansion (\`-Zunpretty=expanded\`) | $expanded_lines |
| LLVM IR, release (\`cargo llvm-lines\`) | $ir_lines in $ir_copies function copies |

EOF
if [ -s "$llvm" ]; then
    echo "The 10 functions with the most LLVM IR lines (release):"
    echo
    echo '```'
    awk '{ print } $NF == "(TOTAL)" { found = 1 } found && NF && $NF != "(TOTAL)" && ++n == 10 { exit }' "$llvm"
    echo '```'
fi
