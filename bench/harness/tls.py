"""A certificate authority and a server certificate for 127.0.0.1, made with openssl for the HTTPS comparisons, so
every client trusts the server through its CA option and none needs --insecure."""
import subprocess
from dataclasses import dataclass
from pathlib import Path

from .common import WORK, BenchError


@dataclass
class Certificates:
    ca: Path
    server_cert: Path
    server_key: Path


def make_certificates(addresses: tuple[str, ...] = ("127.0.0.1",)) -> Certificates:
    """Made once per bench run under bench/work/tls/ (EC P-256, like most servers today)."""
    folder = WORK / "tls"
    folder.mkdir(parents=True, exist_ok=True)
    ca_key, ca, key, csr, cert = (folder / n for n in ("ca.key", "ca.pem", "server.key", "server.csr", "server.pem"))
    ext = folder / "server.ext"
    ext.write_text("subjectAltName=" + ",".join(f"IP:{a}" for a in addresses) + "\nextendedKeyUsage=serverAuth\n")
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]
    steps = [
        ["openssl", "req", "-x509", *ec, "-keyout", ca_key, "-out", ca, "-days", "2", "-subj", "/CN=uploader-tui bench CA"],
        ["openssl", "req", *ec, "-keyout", key, "-out", csr, "-subj", "/CN=127.0.0.1"],
        ["openssl", "x509", "-req", "-in", csr, "-CA", ca, "-CAkey", ca_key, "-CAcreateserial", "-out", cert, "-days",
         "2", "-extfile", ext],
    ]
    for argv in steps:
        result = subprocess.run([str(a) for a in argv], capture_output=True, text=True)
        if result.returncode != 0:
            raise BenchError(f"openssl: {result.stderr.strip()}")
    return Certificates(ca=ca, server_cert=cert, server_key=key)
