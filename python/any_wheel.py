"""``python3 python/any_wheel.py WHEEL OUT_DIR``: the wheel for any platform
(``py3-none-any``), made from a wheel of sitemapgen-cli that holds the binary: the same
package, metadata and plugins without the binary, and a ``sitemapgen`` script that says
there is none (exit 1).

pip takes it where no wheel with a binary fits (Windows on arm64, FreeBSD, 32-bit, an older
glibc), in place of the sdist, whose Rust needs a toolchain there: the install
succeeds and the plugins let the build finish with a warning. Where a wheel with a binary
fits, pip prefers it (a platform tag ranks above ``any``). The release workflow and
tests/packages make it so.
"""

import base64
import hashlib
import os
import sys
import zipfile

# The script pip makes for it; the binary's own wheels have the binary in its place.
SCRIPT = b"\n[console_scripts]\nsitemapgen = sitemapgen_cli.__main__:main\n"


def wheel_file(text):
    """The WHEEL file with one tag, for any platform, and the package in purelib."""
    lines = [
        line
        for line in text.decode().splitlines()
        if not line.startswith(("Tag:", "Root-Is-Purelib:"))
    ]
    return "\n".join(lines + ["Root-Is-Purelib: true", "Tag: py3-none-any", ""]).encode()


def entry(path):
    """A file of the wheel, dated as zip's epoch: the same wheel for the same input."""
    info = zipfile.ZipInfo(path, date_time=(1980, 1, 1, 0, 0, 0))
    info.external_attr = 0o644 << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    return info


def main(source, out_dir):
    with zipfile.ZipFile(source) as wheel:
        names = wheel.namelist()
        dist_info = next(n.split("/")[0] for n in names if n.split("/")[0].endswith(".dist-info"))
        stem = dist_info[: -len(".dist-info")]
        target = os.path.join(out_dir, f"{stem}-py3-none-any.whl")
        records = []
        with zipfile.ZipFile(target, "w") as out:

            def write(path, data):
                out.writestr(entry(path), data)
                digest = hashlib.sha256(data).digest()
                encoded = base64.urlsafe_b64encode(digest).rstrip(b"=").decode()
                records.append(f"{path},sha256={encoded},{len(data)}")

            record = f"{dist_info}/RECORD"
            for path in names:
                # The binary is the one file under .data/scripts/; the SBOM lists its crates.
                if path == record or path.startswith(
                    (f"{stem}.data/scripts/", f"{dist_info}/sboms/")
                ):
                    continue
                data = wheel.read(path)
                if path == f"{dist_info}/WHEEL":
                    data = wheel_file(data)
                elif path == f"{dist_info}/entry_points.txt":
                    data += SCRIPT
                write(path, data)
            records.append(f"{record},,")
            out.writestr(entry(record), "\n".join(records) + "\n")
    print(target)


if __name__ == "__main__":
    main(*sys.argv[1:])
