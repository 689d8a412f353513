// A C2PA manifest signed by a throwaway certificate authority made here (openssl), with the
// c2pa-node library's own Builder and LocalSigner: a signer no trust list holds.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Builder, LocalSigner } from '@contentauth/c2pa-node';
import { tempDir } from './service.ts';

export interface ThrowawaySigner {
  /** The authority's certificate (PEM): what a trust list would have to hold. */
  caPem: string;
  caFile: string;
  /** Signs a PNG: the signed file's bytes. */
  signPng(png: Buffer): Buffer;
}

export function throwawaySigner(name = 'Obscura test signer'): ThrowawaySigner {
  const dir = tempDir('obscura-c2pa-ca-');
  const at = (f: string) => path.join(dir, f);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  writeFileSync(
    at('ext.cnf'),
    [
      '[ca]',
      'basicConstraints = critical, CA:TRUE',
      'keyUsage = critical, keyCertSign, cRLSign',
      'subjectKeyIdentifier = hash',
      '[leaf]',
      'basicConstraints = critical, CA:FALSE',
      'keyUsage = critical, digitalSignature',
      'extendedKeyUsage = emailProtection',
      'subjectKeyIdentifier = hash',
      'authorityKeyIdentifier = keyid:always',
      '',
    ].join('\n'),
  );
  openssl('ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'ca.key');
  openssl('req', '-new', '-x509', '-key', 'ca.key', '-subj', `/CN=${name} CA/O=Obscura tests`, '-days', '30', '-sha256', '-extensions', 'ca', '-config', at('ext.cnf'), '-out', 'ca.pem');
  openssl('ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'leaf.ec');
  openssl('pkcs8', '-topk8', '-nocrypt', '-in', 'leaf.ec', '-out', 'leaf.key');
  openssl('req', '-new', '-key', 'leaf.key', '-subj', `/CN=${name}/O=Obscura tests`, '-out', 'leaf.csr');
  openssl('x509', '-req', '-in', 'leaf.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-days', '30', '-sha256', '-extfile', at('ext.cnf'), '-extensions', 'leaf', '-out', 'leaf.pem');
  const caPem = readFileSync(at('ca.pem'), 'utf8');
  const chain = Buffer.concat([readFileSync(at('leaf.pem')), readFileSync(at('ca.pem'))]);
  const key = readFileSync(at('leaf.key'));
  return {
    caPem,
    caFile: at('ca.pem'),
    signPng(png) {
      const builder = Builder.withJson({
        claim_generator_info: [{ name: 'obscura-test', version: '1.0' }],
        title: 'signed.png',
        format: 'image/png',
        assertions: [{ label: 'c2pa.actions', data: { actions: [{ action: 'c2pa.created', digitalSourceType: 'http://cv.iptc.org/newscodes/digitalsourcetype/digitalCapture' }] } }],
      } as never);
      const dest = { buffer: null as Buffer | null };
      builder.sign(LocalSigner.newSigner(chain, key, 'es256'), { buffer: png, mimeType: 'image/png' }, dest as never);
      if (!dest.buffer) throw new Error('the library wrote no signed file');
      return dest.buffer;
    },
  };
}
