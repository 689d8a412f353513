// The blob seam now lives with the domain's other ports (domain/ports.ts); the stores import it from here.
export { BlobNotFoundError, OffsetMismatchError, SizeLimitError, type AppendOptions, type BlobStore, type ByteSource } from '../../domain/ports.ts';
