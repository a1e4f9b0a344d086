#!/usr/bin/env bash
# Renders sleepledger-admin's SVG charts in headless Chromium and checks that the bar,
# line and goal-band colours are on the picture (docs/admin.md).
#
# Usage: deploy/chart-check.sh [FILE.svg ...]
#   With files: checks those.
#   Without: the quickstart's charts (user "demo" on the embedded default, debt and
#   duration, weekly and yearly) when that user has been imported and rolled up;
#   otherwise the charts of the test suite's generated user (swift test writes them).
# Installs Debian's chromium when missing. Runs Chromium with --no-sandbox as root.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v chromium >/dev/null 2>&1; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium
fi
if ! command -v python3 >/dev/null 2>&1; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3
fi

work=$(mktemp -d /tmp/sleepledger-chart-check.XXXXXX)
trap 'rm -rf "$work"' EXIT
files=("$@")

if [ ${#files[@]} -eq 0 ]; then
  swift build -c release --product sleepledger-admin >/dev/null
  admin="$(swift build -c release --show-bin-path)/sleepledger-admin"
  for kind in debt duration; do
    for horizon in weekly yearly; do
      out="$work/demo-$kind-$horizon.svg"
      if "$admin" chart demo --kind "$kind" --horizon "$horizon" --output "$out" >/dev/null 2>&1 && [ -s "$out" ]; then
        files+=("$out")
      fi
    done
  done
  if [ ${#files[@]} -eq 0 ]; then
    echo "chart-check: the quickstart's demo user has no stored results yet; using the test suite's generated user"
    mkdir -p "$work/suite"
    SLEEPLEDGER_CHART_OUTPUT="$work/suite" bash deploy/test.sh --filter AdminChartTests >/dev/null
    files=("$work/suite"/*.svg)
  fi
fi

flags=(--headless --disable-gpu --hide-scrollbars --force-device-scale-factor=1 --window-size=900,460)
[ "$(id -u)" -eq 0 ] && flags+=(--no-sandbox)

status=0
for svg in "${files[@]}"; do
  png="$work/$(basename "$svg" .svg).png"
  chromium "${flags[@]}" --screenshot="$png" "file://$(realpath "$svg")" >/dev/null 2>&1 || true
  if [ ! -s "$png" ]; then
    echo "FAIL $svg: chromium produced no screenshot"
    status=1
    continue
  fi
  # The colours the SVG declares for bars, lines and the band (fill-opacity applied on
  # white), each of which must cover some pixels of the screenshot.
  python3 - "$svg" "$png" <<'PY' || status=1
import re, struct, sys, zlib

svg_path, png_path = sys.argv[1], sys.argv[2]
svg = open(svg_path, encoding="utf-8").read()

def read_png(path):
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, color = struct.unpack(">IIBB", chunk[:10])
            assert depth == 8 and color in (2, 6), "unexpected PNG format"
            channels = 4 if color == 6 else 3
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, previous, i = [], bytearray(stride), 0
    for _ in range(height):
        f = raw[i]; line = bytearray(raw[i + 1:i + 1 + stride]); i += 1 + stride
        for x in range(stride):
            a = line[x - channels] if x >= channels else 0
            b = previous[x]
            c = previous[x - channels] if x >= channels else 0
            if f == 1: line[x] = (line[x] + a) & 255
            elif f == 2: line[x] = (line[x] + b) & 255
            elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line); previous = line
    return width, height, channels, rows

width, height, channels, rows = read_png(png_path)
counts = {}
def rgb(hexcode):
    return tuple(int(hexcode[i:i + 2], 16) for i in (1, 3, 5))

wanted = {}
for m in re.finditer(r'<rect class="([^"]+)"[^>]*? fill="(#[0-9a-f]{6})"(?: fill-opacity="([0-9.]+)")?', svg):
    cls, color, opacity = m.group(1), m.group(2), m.group(3)
    if cls in ("background",):
        continue
    target = rgb(color)
    if opacity:
        o = float(opacity)
        target = tuple(round(v * o + 255 * (1 - o)) for v in target)
    wanted.setdefault(cls.split()[0] if cls != "average-bar below-minimum" else "average-bar below-minimum", target)
for m in re.finditer(r'<polyline class="([^"]+)"[^>]*stroke="(#[0-9a-f]{6})"', svg):
    wanted.setdefault(m.group(1), rgb(m.group(2)))
for m in re.finditer(r'<rect class="below-minimum"[^>]*stroke="(#[0-9a-f]{6})"', svg):
    wanted.setdefault("below-minimum frame", rgb(m.group(1)))

found = {name: 0 for name in wanted}
for row in rows:
    for x in range(0, width * channels, channels):
        px = (row[x], row[x + 1], row[x + 2])
        for name, t in wanted.items():
            if abs(px[0] - t[0]) <= 8 and abs(px[1] - t[1]) <= 8 and abs(px[2] - t[2]) <= 8:
                found[name] += 1
missing = [f"{n} {'#%02x%02x%02x' % wanted[n]}" for n, c in found.items() if c < 12]
summary = ", ".join(f"{n}={c}" for n, c in sorted(found.items()))
if missing:
    print(f"FAIL {svg_path}: not on the picture: {', '.join(missing)} ({summary})")
    sys.exit(1)
print(f"ok   {svg_path} ({width}x{height}): {summary}")
PY
done
exit $status
