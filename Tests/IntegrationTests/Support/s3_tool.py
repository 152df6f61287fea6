#!/usr/bin/env python3
"""Test helper that talks to an S3-compatible endpoint with boto3: mb, mb-locked, sha256 KEY, checksum KEY, uploads,
keys; and crc32 FILE [PART_SIZE], the checksum S3 keeps for a file uploaded whole or in parts, from zlib."""
import base64
import hashlib
import json
import struct
import sys
import zlib

import boto3


def crc32(path: str, part_size: str | None = None) -> str:
    """Base64 of the big-endian CRC-32 of the file, or of its parts' CRC-32s one after another."""
    data = open(path, "rb").read()
    if not part_size:
        return base64.b64encode(struct.pack(">I", zlib.crc32(data))).decode()
    size = int(part_size)
    parts = b"".join(struct.pack(">I", zlib.crc32(data[i:i + size])) for i in range(0, len(data), size))
    return base64.b64encode(struct.pack(">I", zlib.crc32(parts))).decode()


def main() -> None:
    endpoint, command, *arguments = sys.argv[1:]
    if command == "crc32":
        print(crc32(*arguments))
        return
    bucket, *rest = arguments
    s3 = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1",
                      aws_access_key_id="test", aws_secret_access_key="testsecret")
    if command == "mb":
        s3.create_bucket(Bucket=bucket)
    elif command == "mb-locked":
        # Object Lock with a default retention: S3 then refuses an upload that gives neither Content-MD5 nor a checksum.
        s3.create_bucket(Bucket=bucket, ObjectLockEnabledForBucket=True)
        s3.put_object_lock_configuration(Bucket=bucket, ObjectLockConfiguration={
            "ObjectLockEnabled": "Enabled", "Rule": {"DefaultRetention": {"Mode": "GOVERNANCE", "Days": 1}}})
    elif command == "checksum":
        head = s3.head_object(Bucket=bucket, Key=rest[0], ChecksumMode="ENABLED")
        # "ALGORITHM base64"; a multipart object's may end in "-" and its count of parts, depending on the server.
        stored = [(name, head[f"Checksum{name}"]) for name in ("CRC32", "SHA256") if f"Checksum{name}" in head]
        print(" ".join((stored[0][0], stored[0][1].split("-")[0])) if stored else "none")
    elif command == "iam-user":
        # Four requests, made before moto starts checking: a user allowed everything, its key, and the bucket.
        iam = boto3.client("iam", endpoint_url=endpoint, region_name="us-east-1",
                           aws_access_key_id="test", aws_secret_access_key="testsecret")
        iam.create_user(UserName="uploader")
        key = iam.create_access_key(UserName="uploader")["AccessKey"]
        iam.put_user_policy(UserName="uploader", PolicyName="all", PolicyDocument=json.dumps(
            {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]}))
        s3.create_bucket(Bucket=bucket)
        print(key["AccessKeyId"], key["SecretAccessKey"])
    elif command == "sha256":
        digest = hashlib.sha256()
        for chunk in s3.get_object(Bucket=bucket, Key=rest[0])["Body"].iter_chunks(1 << 20):
            digest.update(chunk)
        print(digest.hexdigest())
    elif command == "uploads":
        print(json.dumps([u["Key"] for u in s3.list_multipart_uploads(Bucket=bucket).get("Uploads", [])]))
    elif command == "head":
        head = s3.head_object(Bucket=bucket, Key=rest[0])
        print(json.dumps({"type": head.get("ContentType"), "cache": head.get("CacheControl"),
                          "meta": head.get("Metadata", {})}, sort_keys=True))
    elif command == "keys":
        print(json.dumps(sorted(o["Key"] for o in s3.list_objects_v2(Bucket=bucket).get("Contents", []))))


if __name__ == "__main__":
    main()
