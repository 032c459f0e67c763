"""Checks a headless-Chromium screenshot of a --compare HTML report.

usage: check_screenshot.py SHOT.png CHARTS COLOUR[,COLOUR...]

Standard library only (the PNG is decoded with zlib). The report draws each
chart on a #fafafa panel (the SVG's background) on a white page; the script
finds the panels as bands of rows holding that grey and checks, for each:
  - it lies wholly inside the screenshot (not cut by the window's edges) and
    scales with the window (it fills most of the page's width);
  - a frame 3 px wide along its edges is background: no label, tick or
    legend text runs into the border, where the SVG would clip it;
  - the rotated y-axis label is there, at its left;
and that a legend swatch (a solid square) of every given colour appears.
Prints what it found; exits 1 on the first failed check.
"""
import struct
import sys
import zlib


def read_png(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit(f"{path}: not a PNG")
    pos, idat, width = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or colour not in (2, 6) or interlace:
                sys.exit(f"{path}: unsupported PNG (depth {depth}, colour type {colour})")
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, previous = [], bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b = previous[i]
            c = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + a) & 255
            elif kind == 2:
                line[i] = (line[i] + b) & 255
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[x * channels:x * channels + 3]) for x in range(width)])
        previous = line
    return width, height, rows


PANEL = (250, 250, 250)


def is_background(pixel):
    return min(pixel) >= 240  # white page, #fafafa panel, or their blend


def fail(message):
    print("FAIL " + message)
    sys.exit(1)


def main():
    path, expected, colours = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(",")
    width, height, rows = read_png(path)
    print(f"screenshot {width}x{height}")

    # Bands of rows with a long run of panel grey are the charts.
    bands, current = [], None
    for y, row in enumerate(rows):
        count = sum(1 for p in row if p == PANEL)
        if count >= 16:
            current = [y, y] if current is None else [current[0], y]
        elif current is not None:
            bands.append(current)
            current = None
    if current is not None:
        bands.append(current)
    if len(bands) != expected:
        fail(f"expected {expected} chart panels, found {len(bands)}")

    for n, (top, bottom) in enumerate(bands, 1):
        xs = [x for y in (top, (top + bottom) // 2, bottom)
              for x, p in enumerate(rows[y]) if p == PANEL]
        left, right = min(xs), max(xs)
        name = f"chart {n} ({right - left + 1}x{bottom - top + 1} at {left},{top})"
        if top == 0 or left == 0 or bottom >= height - 1 or right >= width - 1:
            fail(f"{name} is cut by the window's edge")
        # The page's body is at most 760 px wide with 1em padding: the chart
        # must fill most of what the window leaves it.
        if right - left + 1 < 0.8 * (min(width, 792) - 48):
            fail(f"{name} does not scale to the window")
        frame = 3
        for y in range(top, bottom + 1):
            edge = y - top < frame or bottom - y < frame
            columns = range(left, right + 1) if edge else \
                list(range(left, left + frame)) + list(range(right - frame + 1, right + 1))
            for x in columns:
                if not is_background(rows[y][x]):
                    fail(f"{name}: ink at its border ({x},{y}) = {rows[y][x]}: "
                         "something runs past the SVG's edge")
        strip = int((right - left) * 0.05)
        if not any(not is_background(rows[y][x]) for y in range(top, bottom + 1)
                   for x in range(left + frame, left + frame + strip)):
            fail(f"{name}: no y-axis label at its left")
        print(f"{name}: inside the window, border clear, y label present")

    # Legend swatches: a solid square of each colour, at least 7 px.
    side = 7
    for colour in colours:
        want = tuple(int(colour.lstrip("#")[i:i + 2], 16) for i in (0, 2, 4))
        near = lambda p: all(abs(p[i] - want[i]) <= 8 for i in range(3))
        found = None
        for top, bottom in bands:
            for y in range(top, bottom - side + 2):
                run = 0
                for x in range(width):
                    run = run + 1 if near(rows[y][x]) else 0
                    if run >= side and all(near(rows[y + k][x - j])
                                           for k in range(side) for j in range(side)):
                        found = (x - side + 1, y)
                        break
                if found:
                    break
            if found:
                break
        if not found:
            fail(f"no legend swatch of {colour}")
        print(f"legend swatch {colour} at {found[0]},{found[1]}")
    print("screenshot OK")


if __name__ == "__main__":
    main()
