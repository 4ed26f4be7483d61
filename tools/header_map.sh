#!/usr/bin/env bash
# The header map: every public header under include/provpol, folder by folder (the top level, then each family's
# folder, then detail/), its layer, its line count, the concept it holds (its header comment's first clause) and
# what it includes (provpol's own headers, then standard headers), as a Markdown table in a stable order (LC_ALL=C).
#
#   tools/header_map.sh                      print the map
#   tools/header_map.sh --check FILE.md      exit 1, with a diff, unless FILE.md holds the same map between the
#                                            lines "<!-- header-map begin -->" and "<!-- header-map end -->"
#   tools/header_map.sh --update FILE.md     replace the map between those lines with the current one
#   tools/header_map.sh --check-layers       exit 1, naming each include that goes against the layers: the
#                                            vocabulary includes only the vocabulary, a decision header only the
#                                            vocabulary and decision headers; and the headers of any include cycle
#
# The layers, by path: the vocabulary is the top level's own headers and detail/; the decisions are extend/,
# log_size/, chunk/, their umbrellas (extend.hpp, log_size.hpp, chunk.hpp) and the embedder's umbrella provpol.hpp
# (so that it cannot include a model header); the models are flow/, fit/, simulate/, domain/, their umbrellas and
# models.hpp, which includes every public header. docs/design.md holds the map; the ctest
# docs.header_map runs --check on it so the two cannot drift, and packaging.header_layers runs --check-layers.
set -euo pipefail
export LC_ALL=C

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
inc="$root/include/provpol"

# A header's includes, one a line: "u TARGET" or, inside an #if other than the include guard, "c TARGET".
includes() {
    awk '
        /^[[:space:]]*#[[:space:]]*if/ { depth++ }
        /^[[:space:]]*#[[:space:]]*endif/ { depth-- }
        /^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]/ {
            target = $0
            sub(/^[[:space:]]*#[[:space:]]*include[[:space:]]*/, "", target)
            match(target, /^[<"][^>"]+[>"]/)
            print (depth > guard ? "c " : "u ") substr(target, 1, RLENGTH)
        }
        BEGIN { guard = 0 }
        /^#ifndef PROVPOL_[A-Z0-9_]+_HPP$/ && !seen_guard { guard = 1; seen_guard = 1 }
    ' "$1"
}

# The concept a header holds: its header comment ("// provpol/PATH - ...", up to the first blank "//" line) to the
# first ": ", ". " or "; " outside parentheses, its "|" escaped for the table.
concept() {
    awk '
        NR == 1 { sub(/^\/\/ provpol\/[^ ]+ - /, ""); text = $0; next }
        /^\/\/ / && !done { line = $0; sub(/^\/\/ +/, "", line); text = text " " line; next }
        { done = 1 }
        END {
            depth = 0
            for (i = 1; i <= length(text); i++) {
                c = substr(text, i, 1)
                if (c == "(") depth++
                else if (c == ")") depth--
                else if (depth == 0 && (c == ":" || c == "." || c == ";") && (i == length(text) || substr(text, i + 1, 1) == " ")) break
            }
            text = substr(text, 1, i - 1)
            gsub(/\|/, "\\|", text)
            print text
        }
    ' "$1"
}

# One header's row. Conditional includes are marked "(conditional)". Quoted includes are resolved against the header's own directory and printed relative to
# include/provpol ("detail/math.hpp", "config.hpp"); angle includes of provpol/ likewise; others are std headers.
row() {
    local file=$1 rel dir lines own=() std=() target
    rel=${file#"$inc"/}
    dir=$(dirname "$rel")
    lines=$(wc -l <"$file")
    local flag note
    while IFS=' ' read -r flag target; do
        note=""
        [[ $flag == c ]] && note=" (conditional)"
        case $target in
            \"*\")
                target=${target#\"}; target=${target%\"}
                [[ $dir != . ]] && target="$dir/$target"
                target=$(realpath -m --relative-to="$inc" "$inc/$target")
                own+=("\`$target\`$note") ;;
            \<provpol/*\>)
                target=${target#<provpol/}; own+=("\`${target%>}\`$note") ;;
            *)
                std+=("\`$target\`$note") ;;
        esac
    done < <(includes "$file")
    local own_text=- std_text=-
    if ((${#own[@]})); then own_text=$(printf '%s\n' "${own[@]}" | sort -u | paste -sd ' ' -); fi
    if ((${#std[@]})); then std_text=$(printf '%s\n' "${std[@]}" | sort -u | paste -sd ' ' -); fi
    # shellcheck disable=SC2016  # the backquotes are Markdown, not a command substitution
    printf '| `%s` | %s | %s | %s | %s | %s |\n' "$rel" "$(layer "$rel")" "$lines" "$(concept "$file")" "$own_text" \
        "$std_text"
}

# A header's layer, from its path relative to include/provpol.
layer() {
    case $1 in
        provpol.hpp | extend.hpp | log_size.hpp | chunk.hpp | extend/* | log_size/* | chunk/*) echo decision ;;
        models.hpp | flow.hpp | fit.hpp | simulate.hpp | domain.hpp | flow/* | fit/* | simulate/* | domain/*) echo model ;;
        detail/* | *.hpp) if [[ $1 == */* && $1 != detail/* ]]; then echo unknown; else echo vocabulary; fi ;;
    esac
}

# Every header relative to include/provpol: the top level, each folder in name order, detail/ last.
headers() {
    (cd "$inc" && find . -maxdepth 1 -name '*.hpp' -type f | sort &&
        find . -mindepth 2 -name '*.hpp' -type f -not -path './detail/*' | sort &&
        find ./detail -name '*.hpp' -type f | sort) | sed 's|^\./||'
}

# --check-layers: each include that goes against the layers, one a line; exit 1 when there is one.
check_layers() {
    local rel from to target flag status=0 edges="" loop
    while IFS= read -r rel; do
        from=$(layer "$rel")
        if [[ $from == unknown ]]; then
            echo "header_map: include/provpol/$rel is in no layer (a new folder? add it to layer() in $0)" >&2
            status=1
            continue
        fi
        while IFS=' ' read -r flag target; do
            case $target in
                \"*\") target=${target#\"}; target=${target%\"}
                      target=$(realpath -m --relative-to="$inc" "$inc/$(dirname "$rel")/$target") ;;
                \<provpol/*\>) target=${target#<provpol/}; target=${target%>} ;;
                *) continue ;;
            esac
            to=$(layer "$target")
            edges+="$rel $target"$'\n'
            case $from:$to in
                vocabulary:vocabulary | decision:vocabulary | decision:decision | model:vocabulary | model:decision | \
                    model:model) ;;
                *) echo "header_map: $rel ($from) includes $target ($to): a $from header must not include a $to header" >&2
                   status=1 ;;
            esac
        done < <(includes "$inc/$rel")
    done < <(headers)
    # No include cycle: a header that (through others) includes itself compiles only in one order.
    if ! loop=$(printf '%s' "$edges" | tsort 2>&1 >/dev/null); then
        echo "header_map: an include cycle: $(sed -n 's/^tsort: \([^ :]*\)$/\1/p' <<<"$loop" | tr '\n' ' ')" >&2
        status=1
    fi
    [[ $status == 0 ]] && echo "header_map: $(headers | wc -l) headers, every include within the layers, no cycle"
    return $status
}

map() {
    printf '| header | layer | lines | holds | includes (provpol) | includes (standard) |\n'
    printf '|---|---|---:|---|---|---|\n'
    local f
    while IFS= read -r f; do row "$inc/$f"; done < <(headers)
}

has_block() {
    if ! grep -qx '<!-- header-map begin -->' "$1" || ! grep -qx '<!-- header-map end -->' "$1"; then
        echo "header_map: $1 has no '<!-- header-map begin -->' ... '<!-- header-map end -->' block" >&2
        exit 1
    fi
}

case ${1:-} in
    "")
        map ;;
    --check)
        doc=${2:?usage: tools/header_map.sh --check FILE.md}
        has_block "$doc"
        if ! diff -u --label "$doc (header map)" --label "tools/header_map.sh" \
                <(sed -n '/^<!-- header-map begin -->$/,/^<!-- header-map end -->$/{//!p}' "$doc") <(map); then
            echo "header_map: the map in $doc is out of date: run tools/header_map.sh --update $doc" >&2
            exit 1
        fi ;;
    --check-layers)
        check_layers ;;
    --update)
        doc=${2:?usage: tools/header_map.sh --update FILE.md}
        has_block "$doc"
        tmp=$(mktemp)
        trap 'rm -f "$tmp"' EXIT
        map >"$tmp"
        sed -i -e '/^<!-- header-map begin -->$/,/^<!-- header-map end -->$/{//!d}' \
               -e "/^<!-- header-map begin -->\$/r $tmp" "$doc" ;;
    -h|--help)
        sed -n '2,17p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' ;;
    *)
        echo "usage: tools/header_map.sh [--check FILE.md | --update FILE.md | --check-layers]" >&2
        exit 2 ;;
esac
