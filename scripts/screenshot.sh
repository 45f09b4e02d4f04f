#!/usr/bin/env bash
# Screenshot check of the audit's HTML report: runs `reid audit` on the demo's data, opens
# report.html in headless Chromium (Debian package chromium), takes a screenshot of the
# whole page and one of each chart alone (report.html#chart-ID shows only that chart),
# and checks that no chart is blank (scripts/pngcheck counts non-white and coloured pixels).
#
#   scripts/screenshot.sh [OUTDIR]     (default: a temporary directory, kept)
#
# Exit 0 when every chart is drawn, 1 otherwise, 2 when Chromium is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-$(mktemp -d -t reid-screenshot-XXXXXX)}
mkdir -p "$out"
chrome=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -z "$chrome" ]; then
	echo "screenshot.sh: no chromium (apt-get install -y chromium)" >&2
	exit 2
fi
go build -o "$out/reid" ./cmd/reid
"$out/reid" demo --records 400 --dir "$out/data" --audit=false >/dev/null
"$out/reid" audit --original "$out/data/original.csv" --masked "$out/data/rankswap_p5.csv" \
	--masking rankswap:p=5 --keys age_band,sex,region --time-limit 4s --out "$out/report" >"$out/audit.txt" 2>&1
page="file://$(cd "$out/report" && pwd)/report.html"

shot() { # shot PNG URL WIDTH,HEIGHT
	local profile
	profile=$(mktemp -d)
	"$chrome" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$profile" --hide-scrollbars --screenshot="$1" --window-size="$3" "$2" >/dev/null 2>&1
	rm -rf "$profile"
}

shot "$out/report.png" "$page" 1200,2000
charts=$(grep -o 'id="chart-[a-z-]*"' "$out/report/report.html" | sed 's/id="chart-\(.*\)"/\1/')
pngs=()
for c in $charts; do
	shot "$out/chart-$c.png" "$page#chart-$c" 760,480
	pngs+=("$out/chart-$c.png")
done
echo "charts: $(echo $charts | wc -w) ($(echo $charts))"
go run ./scripts/pngcheck "${pngs[@]}"
echo "screenshots in $out"
