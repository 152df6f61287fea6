#!/usr/bin/env python3
"""Test helper that talks to an S3-compatible endpoint with boto3: mb, mb-locked, sha256 KEY, checksum KEY, uploads,
keys."""
import hashlib
import json
import sys

import boto3


def main() -> None:
    endpoint, command, bucket, *rest = sys.argv[1:]
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
        # A multipart object's may end in "-" and its count of parts, depending on the server and the SDK.
        print(head.get("ChecksumSHA256", "none").split("-")[0])
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
    elif command == "keys":
        print(json.dumps(sorted(o["Key"] for o in s3.list_objects_v2(Bucket=bucket).get("Contents", []))))


if __name__ == "__main__":
    main()
