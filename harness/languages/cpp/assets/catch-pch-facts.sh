#!/bin/sh
# What harness/languages/cpp/catch_pch.py needs to know about this image's compiler and Catch2 to decide
# when a test unit may take Catch2 precompiled, written to OUT at image build time:
#
#   neutral-headers  standard headers that may come before <catch2/catch.hpp> without
#                    changing what it compiles to: Catch2's own lines preprocess to the
#                    same tokens, Catch2's macros end up the same (but for the config
#                    macros in config-diff), and the header neither defines nor looks at
#                    a name of Catch2's macros
#   config-diff      macros whose definition such a header changes; no Catch2 macro
#                    refers to them, so only a test or header that names them can tell
#   names            identifiers a solution header must not use: Catch2's macros and the
#                    names it declares at global scope (written for the Catch2 release
#                    checked below; another release gets no neutral headers)
#
# and, in GCH/KEY/, Catch2 precompiled for each compile line of FLAG-SETS, under the key
# harness-cxx computes from a unit's compiler and flags, so that no session has to make its
# own for the units of our suites and of the Exercism layout (any other unit's is made in
# the session, once).
#
# usage: catch-pch-facts.sh HEADER-LIST FLAG-SETS OUT GCH
set -eu
list=$1 flag_sets=$2 out=$3 gch=$4
mkdir -p "$out"
: > "$out/neutral-headers"
: > "$out/config-diff"
catch=/usr/include/catch2/catch.hpp
cxx="g++ -std=c++17 -x c++"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Catch2's own lines in the preprocessed output, and its macros as they stand at the end.
own() { awk -v f="\"$catch\"" '/^# [0-9]+ "/ { cur = $3; next } cur == f && NF { print }'; }
names_of() { sed -n 's/^#\(define\|undef\) \([A-Za-z_][A-Za-z0-9_]*\).*/\2/p' | sort -u; }
after() { { for h in "$@"; do printf '#include <%s>\n' "$h"; done; printf '#include <catch2/catch.hpp>\n'; }; }

release=$(sed -n 's/^#define CATCH_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)$/\2/p' "$catch" | paste -sd.)
# Every name Catch2's text defines in any branch, for the header's side (erring wide), and
# the ones it defines here, for the comparisons.
sed -n 's/^[[:space:]]*#[[:space:]]*define[[:space:]]\{1,\}\([A-Za-z_][A-Za-z0-9_]*\).*/\1/p' "$catch" | sort -u > "$work/any-macros"
after | $cxx -E -dD - | own | names_of > "$work/macros"
if [ "$release" != "2.13.10" ]; then
    echo "Catch2 $release: its global names are not known here; no test unit takes it precompiled" >&2
    cp "$work/any-macros" "$out/names"
    exit 0
fi
{ cat "$work/any-macros"; printf '%s\n' Approx Catch Catch_global_namespace_dummy StringRef _catch_sr mpl_; } | sort -u > "$out/names"
defs() { sed -n 's/^#define \([A-Za-z_][A-Za-z0-9_]*\)/\1 &/p' | sort -k1,1 | join - "$work/macros" | cut -d' ' -f2-; }
after | $cxx -E - | own > "$work/tokens"
after | $cxx -E -dM - | defs > "$work/defs"
$cxx -E -dM - </dev/null | sort > "$work/predefined"

# Compares Catch2 after the headers given with Catch2 alone; appends the macros whose
# final definition differs to $work/diff.
same_catch() {
    after "$@" | $cxx -E - 2>/dev/null | own > "$work/t" || return 1
    cmp -s "$work/tokens" "$work/t" || return 1
    after "$@" | $cxx -E -dM - 2>/dev/null | defs > "$work/d" || return 1
    diff "$work/defs" "$work/d" | sed -n 's/^[<>] #define \([A-Za-z_][A-Za-z0-9_]*\).*/\1/p' >> "$work/diff"
}

: > "$work/diff"
for h in $(cat "$list"); do
    printf '#include <%s>\n' "$h" | $cxx -E -dM - 2>/dev/null | sort > "$work/h-defs" || continue
    printf '#include <%s>\n' "$h" | $cxx -E -dU - 2>/dev/null | names_of > "$work/h-uses"
    comm -13 "$work/predefined" "$work/h-defs" | names_of | cat - "$work/h-uses" | sort -u > "$work/h-names"
    [ -z "$(comm -12 "$work/h-names" "$work/macros")" ] || continue
    same_catch "$h" || continue
    echo "$h" >> "$out/neutral-headers"
done
# All of them at once, as a solution header may include several: the same, or none.
same_catch $(cat "$out/neutral-headers") || : > "$out/neutral-headers"

sort -u "$work/diff" > "$out/config-diff"
# A config macro that a Catch2 macro's body names would reach the test unit: then no header
# is neutral after all.
after | $cxx -E -dM - | defs > "$work/bodies"
for m in $(cat "$out/config-diff"); do
    if cut -d' ' -f3- "$work/bodies" | grep -qw "$m"; then
        echo "$m is named by a Catch2 macro" >&2
        : > "$out/neutral-headers"
    fi
done

[ -s "$out/neutral-headers" ] || exit 0
while read -r line; do
    [ -n "$line" ] || continue
    # shellcheck disable=SC2086  # a compile line, split into its words as the launcher has them
    key=$(printf '%s\n' $line | md5sum | cut -c1-16)
    mkdir -p "$gch/$key"
    printf '#include <catch2/catch.hpp>\n' > "$gch/$key/harness_pch.hpp"
    # shellcheck disable=SC2086
    $line -x c++-header "$gch/$key/harness_pch.hpp" -o "$gch/$key/harness_pch.hpp.gch"
done < "$flag_sets"
