# An S3-compatible store for the compose `scale` profile (docker-compose.yml): Debian's OpenStack
# Swift with its s3api and deploy/s3, the same start script the tests run. Installed at build
# time; run.sh keeps the servers in the foreground. Objects live in the state volume, and only
# ever ciphertext (Obscura encrypts before it writes). Use your own S3 service instead if you
# have one: the instances need only OBSCURA_BLOB_URL and the AWS_* credentials.
FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends swift-proxy swift-object swift-container swift-account curl \
 && rm -rf /var/lib/apt/lists/*
COPY deploy/s3 /opt/obscura/deploy/s3
# Swift reads /etc/swift/swift.conf; start.sh writes one with a fixed hash path (it never changes
# for a store's life, and changing it later would lose every object).
EXPOSE 9000
CMD ["/opt/obscura/deploy/s3/run.sh", "/srv/obscura-s3"]
