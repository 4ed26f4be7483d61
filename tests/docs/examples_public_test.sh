#!/usr/bin/env bash
# The examples (the CLI, the agent, provpol-thinpoold) are written against provpol's public names only, as a user's
# program is: what they need from provpol::detail gets a public, documented name in its header, or moves into the
# example. Two checks:
#   - no file under examples/ writes provpol::detail or a bare detail:: (an example's own helpers live in a
#     namespace of their own name, such as device_detail or lvs_detail, so a bare detail:: is provpol's);
#   - no header under include/provpol re-exports a name of provpol::detail (using detail::NAME; at namespace
#     scope; one inside a function body exports nothing) other than the
#     documented ones below, so that a detail type cannot become public by a using-declaration again.
# Usage: examples_public_test.sh SOURCE_DIR
set -euo pipefail
export LC_ALL=C
src=${1:?usage: examples_public_test.sh SOURCE_DIR}

# Uses left, "file:name", each with its reason (none).
allowed_uses=""
# Re-exports of a detail name documented as public (none: run_seed, never, max_in_flight and max_extends_in_flight
# are declared public where they are defined).
allowed_exports=""

bad=0
while IFS= read -r hit; do
  file=${hit%%:*}
  rest=${hit#*:}
  line=${rest%%:*}
  text=${rest#*:}
  rel=${file#"$src"/}
  for name in $(grep -oE '(provpol::)?detail::[A-Za-z_][A-Za-z0-9_]*' <<<"$text" |
                grep -E '^(provpol::)?detail::' | sort -u || true); do
    case " $allowed_uses " in
      *" $rel:$name "*) continue ;;
    esac
    echo "$rel:$line: uses $name from provpol::detail: give it a public name in its header, or move it into the example" >&2
    bad=$((bad + 1))
  done
done < <(grep -rnE '(^|[^A-Za-z0-9_:])detail::|provpol::detail' "$src/examples" --include='*.cpp' --include='*.hpp' --include='*.h' || true)

while IFS= read -r hit; do
  name=$(sed -E 's/.*using (provpol::)?detail::([A-Za-z_][A-Za-z0-9_]*).*/\2/' <<<"${hit#*:*:}")
  case " $allowed_exports " in
    *" $name "*) continue ;;
  esac
  where=${hit#"$src"/}
  echo "${where%%:using*}: re-exports provpol::detail::$name as a public name: declare it outside detail, documented" >&2
  bad=$((bad + 1))
done < <(grep -rnE '^using (provpol::)?detail::[A-Za-z_][A-Za-z0-9_]*;' "$src/include/provpol" || true)

[ "$bad" = 0 ] || exit 1
echo "examples/ uses no name from provpol::detail"
