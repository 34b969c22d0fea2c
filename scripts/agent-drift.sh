#!/usr/bin/env bash
# Agent drift: what changed, in the modules contextree reproduces, between the agent releases
# pinned in tests/agents and the newest ones on the npm registry (issue 20).
#
#   scripts/agent-drift.sh [--agent NAME]… [--out DIR] [--install] [--head N]
#       every agent (or those named: pi, pi16, omp13, omp) against its newest release
#   scripts/agent-drift.sh --agent NAME --from VER --to VER [--out DIR] [--install]
#       two explicit releases of one agent
#   scripts/agent-drift.sh --agent NAME --from-dir A --to-dir B [--out DIR]
#       two local package trees laid out like node_modules (A/<package>/package.json); offline
#
# Per agent: the pinned and the newest version (and every release in between), then the watched
# modules (scripts/drift/watch.mjs) — changed ones with a diffstat and the first lines of the
# diff, then the unchanged ones. Sources are compared where the packages ship them; what ships
# only inside a Bun bundle (oh-my-pi 18.3's core packages, in dist/cli.js) is split back into
# modules and the minifier's names normalised (scripts/drift/). --out DIR writes every full
# diff, report.txt and report.json under DIR/<agent>/.
#
# --install also installs the newest release in a scratch copy of tests/agents (that version
# swapped in) and runs the parity suites against it:
#   ORACLE=<copy> cargo test -p contextree-cli --test it parity
#
# Exit: 0 nothing watched changed (and, with --install, it installed and the suites passed);
# 1 something did; 2 an error (bad arguments, registry unreachable, a package that cannot be
# read). Needs Node ≥ 20, npm and, except with --from-dir/--to-dir, the npm registry. Packages
# are fetched with `npm pack --ignore-scripts` (nothing of theirs runs).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
compare=(node "$root/scripts/drift/compare.mjs")
agents_dir="$root/tests/agents"
ALL_AGENTS=(pi pi16 omp13 omp)

usage() {
	sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//'
}

die() {
	echo "agent-drift: $*" >&2
	exit 2
}

agents=()
from="" to="" from_dir="" to_dir="" out="" install=0 head=12
while (($#)); do
	case "$1" in
	--agent) agents+=("${2:?--agent needs a name}"); shift 2 ;;
	--from) from="${2:?--from needs a version}"; shift 2 ;;
	--to) to="${2:?--to needs a version}"; shift 2 ;;
	--from-dir) from_dir="${2:?--from-dir needs a folder}"; shift 2 ;;
	--to-dir) to_dir="${2:?--to-dir needs a folder}"; shift 2 ;;
	--out) out="${2:?--out needs a folder}"; shift 2 ;;
	--install) install=1; shift ;;
	--head) head="${2:?--head needs a number}"; shift 2 ;;
	-h | --help) usage; exit 0 ;;
	*) echo "agent-drift: unknown argument $1 (--help lists them)" >&2; exit 2 ;;
	esac
done

command -v node >/dev/null || die "node is not installed"
if [[ -n "$out" ]]; then
	mkdir -p "$out" || die "cannot create $out"
	out="$(cd "$out" && pwd)"
fi
out_args=()
[[ -n "$out" ]] && out_args=(--out "$out")

# Two local trees: no registry, no installing.
if [[ -n "$from_dir" || -n "$to_dir" ]]; then
	[[ -n "$from_dir" && -n "$to_dir" ]] || die "--from-dir and --to-dir go together"
	((${#agents[@]} == 1)) || die "--from-dir/--to-dir need exactly one --agent"
	((install == 0)) || die "--install needs registry versions, not --from-dir/--to-dir"
	exec "${compare[@]}" report --agent "${agents[0]}" --from-tree "$from_dir" --to-tree "$to_dir" --head "$head" "${out_args[@]}"
fi

((${#agents[@]})) || agents=("${ALL_AGENTS[@]}")
if [[ -n "$from" || -n "$to" ]] && ((${#agents[@]} != 1)); then
	die "--from/--to need exactly one --agent"
fi
command -v npm >/dev/null || die "npm is not installed"

scratch="$(mktemp -d "${TMPDIR:-/tmp}/agent-drift.XXXXXX")"
cleanup() { rm -rf "$scratch"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

# npm's own message, shortened, for a failed registry call.
npm_error() {
	grep -E 'npm (error|ERR!)' "$1" | grep -vE 'A complete log|^npm (error|ERR!) *$' | head -3 | sed 's/^npm \(error\|ERR!\) */  /'
}

# `npm view PKG FIELD --json`; exits 2 with npm's reason when the registry does not answer.
registry_view() {
	local pkg="$1" field="$2" err="$scratch/npm-view.err"
	if ! npm view "$pkg" "$field" --json 2>"$err"; then
		{
			echo "agent-drift: the npm registry did not answer for $pkg (npm view $field):"
			npm_error "$err"
			echo "  (offline? compare two local package trees with --from-dir A --to-dir B)"
		} >&2
		exit 2
	fi
}

# Fetches PKG@VER into TREE/PKG (no install scripts). Returns 3 when the registry has no
# such version, exits 2 on any other failure.
fetch_package() {
	local spec="$1" tree="$2" name="${1%@*}" packs="$scratch/packs" err="$scratch/npm-pack.err" tgz
	mkdir -p "$packs" "$tree/$name"
	if ! tgz="$(cd "$packs" && npm pack --ignore-scripts --loglevel=error --pack-destination "$packs" "$spec" 2>"$err" | tail -n1)"; then
		if grep -qE 'code (E404|ETARGET)|No matching version' "$err"; then return 3; fi
		{
			echo "agent-drift: npm pack $spec failed:"
			npm_error "$err"
		} >&2
		exit 2
	fi
	tar xzf "$packs/$tgz" -C "$tree/$name" --strip-components=1 || die "cannot unpack $tgz"
	rm -f "$packs/$tgz"
}

# The agent's package, its pinned version and the version it tracks below (omp13: < 14).
agent_info() {
	local info
	info="$("${compare[@]}" info --agent "$1")" || exit 2
	IFS=$'\t' read -r pkg pin_file below <<<"$info"
	[[ -f "$agents_dir/$pin_file" ]] || die "no $agents_dir/$pin_file"
	pinned="$(PKG="$pkg" node -e 'const p=require(process.argv[1]); const v=(p.dependencies||{})[process.env.PKG]; if(!v) process.exit(1); console.log(v)' "$agents_dir/$pin_file")" \
		|| die "$pin_file does not pin $pkg"
}

# Installs tests/agents with AGENT's package at VERSION in a scratch copy and runs the parity
# suites against it; prints the outcome, returns 0 (passed) or 1.
install_and_test() {
	local name="$1" version="$2" log_dir="$3" copy="$scratch/agents-$1" log kept=""
	[[ -n "$out" ]] || kept=", removed at the end: --out DIR keeps it"
	rm -rf "$copy"
	mkdir -p "$copy/omp13" "$log_dir"
	cp "$agents_dir"/{package.json,package-lock.json,oracle.mjs,gen-session.py} "$copy/"
	cp "$agents_dir/omp13/package.json" "$copy/omp13/"
	(cd "$copy/$(dirname "$pin_file")" && npm pkg set "dependencies.$pkg=$version") || die "cannot set $pkg $version in the copy"
	log="$log_dir/install.log"
	echo "   install: npm install in a copy of tests/agents with $pkg $version (log: $log$kept)"
	if ! (cd "$copy" && npm install --no-audit --no-fund) >"$log" 2>&1; then
		echo "   install: FAILED — $pkg $version does not install:"
		npm_error "$log" | sed 's/^/   /'
		return 1
	fi
	log="$log_dir/parity.log"
	echo "   parity: ORACLE=<copy> cargo test -p contextree-cli --test it parity (log: $log$kept)"
	if (cd "$root" && ORACLE="$copy" cargo test -p contextree-cli --test it parity) >"$log" 2>&1; then
		echo "   parity: passed ($(grep -Eo '[0-9]+ passed' "$log" | tail -n1))"
		return 0
	fi
	echo "   parity: FAILED"
	grep -E '^test .* FAILED$|^    [a-z_0-9:]+$|test result:' "$log" | head -20 | sed 's/^/     /'
	return 1
}

status=0
for name in "${agents[@]}"; do
	agent_info "$name"
	echo
	versions="$(registry_view "$pkg" versions)"
	newest_in_line="$(node -e '
		const v = JSON.parse(require("fs").readFileSync(0, "utf8"));
		const below = process.argv[1];
		const rel = (Array.isArray(v) ? v : [v]).filter(x => /^\d+\.\d+\.\d+$/.test(x));
		const cmp = (a, b) => { const p = a.split(".").map(Number), q = b.split(".").map(Number); return p[0] - q[0] || p[1] - q[1] || p[2] - q[2]; };
		const line = rel.filter(x => !below || cmp(x, below) < 0).sort(cmp);
		console.log(line[line.length - 1] ?? "");' "$below" <<<"$versions")"
	a="${from:-$pinned}"
	b="${to:-$newest_in_line}"
	[[ -n "$b" ]] || die "no release of $pkg${below:+ below $below} on the registry"
	newer="$("${compare[@]}" newer --from "$a" ${below:+--below "$below"} <<<"$versions")"
	if [[ "$a" == "$b" ]]; then
		echo "== $name: $pkg $a is the newest release${below:+ below $below} — nothing to compare"
		latest="$(node -e 'const v=JSON.parse(require("fs").readFileSync(0,"utf8")); console.log(Array.isArray(v)?v[v.length-1]:v)' <<<"$versions")"
		[[ -n "$below" && "$latest" != "$a" ]] && echo "   ($pkg $latest is on the registry: another rule set's line)"
		continue
	fi
	grep -qxF "\"$a\"" <(tr ',[]' '\n\n\n' <<<"$versions" | tr -d ' ') || die "$pkg $a is not on the registry"
	grep -qxF "\"$b\"" <(tr ',[]' '\n\n\n' <<<"$versions" | tr -d ' ') || die "$pkg $b is not on the registry"
	trees="$scratch/$name"
	rm -rf "$trees"
	notes=()
	for side in from to; do
		ver="$a"
		[[ "$side" == to ]] && ver="$b"
		tree="$trees/$side"
		fetch_package "$pkg@$ver" "$tree" || die "$pkg $ver is not on the registry"
		lock_args=()
		# the pinned release's dependencies as the lock file pins them (what the tests run)
		if [[ "$side" == from && "$ver" == "$pinned" ]]; then
			lock_args=(--lock "$agents_dir/package-lock.json" --lock-prefix "$(dirname "$pin_file" | sed -e 's|^\.$||' -e 's|.\{1,\}|&/|')node_modules/")
		fi
		while read -r dep; do
			[[ -n "$dep" ]] || continue
			rc=0
			fetch_package "$dep" "$tree" || rc=$?
			if ((rc == 3)); then notes+=("$dep is not on the registry"); fi
		done < <("${compare[@]}" deps --agent "$name" --tree "$tree" "${lock_args[@]}")
	done
	note_args=()
	for n in ${notes[@]+"${notes[@]}"}; do note_args+=(--note "$n"); done
	from_label=pinned to_label=newest
	[[ "$a" != "$pinned" ]] && from_label=from
	[[ -n "$to" ]] && to_label=to
	rc=0
	"${compare[@]}" report --agent "$name" --from-tree "$trees/from" --to-tree "$trees/to" --head "$head" \
		--newer "$newer" --from-label "$from_label" --to-label "$to_label" \
		"${out_args[@]}" ${note_args[@]+"${note_args[@]}"} || rc=$?
	((rc >= 2)) && exit 2
	((rc > status)) && status=$rc
	if ((install)); then
		log_dir="${out:-$scratch/logs}/$name"
		install_and_test "$name" "$b" "$log_dir" || status=1
	fi
	rm -rf "$trees"
done
exit "$status"
