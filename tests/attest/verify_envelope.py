"""Verifies gatehouse's gate attestation with securesystemslib's DSSE
implementation, which gatehouse did not write: tests/attest_interop.rs runs it.

usage: verify_envelope.py ENVELOPE.json PUBLIC.pem TAMPERED.json RESULT.json

The key id is computed here from the key (the SHA-256 of its DER
SubjectPublicKeyInfo, as docs/attestations.md defines it), not read from the
envelope; securesystemslib only tries a key on signatures naming its key id.
"""

import base64
import hashlib
import json
import sys

from cryptography.hazmat.primitives import serialization
from securesystemslib.dsse import Envelope
from securesystemslib.exceptions import VerificationError
from securesystemslib.signer import SSlibKey


def main(envelope_path, public_path, tampered_path, result_path):
    with open(public_path, "rb") as f:
        public = serialization.load_pem_public_key(f.read())
    der = public.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    keyid = hashlib.sha256(der).hexdigest()
    key = SSlibKey.from_crypto(public, keyid=keyid)

    with open(envelope_path) as f:
        written = json.load(f)
    envelope = Envelope.from_dict(written)
    accepted = envelope.verify([key], 1)
    statement = json.loads(envelope.payload)

    with open(tampered_path) as f:
        tampered = Envelope.from_dict(json.load(f))
    try:
        tampered.verify([key], 1)
        tampered_refused = False
    except VerificationError:
        tampered_refused = True

    result = {
        "accepted_keyids": sorted(accepted),
        "keyid": keyid,
        "payload_type": envelope.payload_type,
        "statement_type": statement["_type"],
        "predicate_type": statement["predicateType"],
        "subjects": [s["name"] for s in statement["subject"]],
        "payload_is_base64": base64.b64encode(envelope.payload).decode() == written["payload"],
        "tampered_refused": tampered_refused,
    }
    with open(result_path, "w") as f:
        json.dump(result, f)


if __name__ == "__main__":
    main(*sys.argv[1:5])
