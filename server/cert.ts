/**
 * A self-signed certificate for localhost/127.0.0.1/::1, made on first run and reused, so
 * the browser sees the same certificate across runs. Kept out of git (.cert/ is ignored).
 */
import { generate } from 'selfsigned';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

export interface TlsFiles {
  key: string;
  cert: string;
}

export async function loadOrCreateCert(dir: string): Promise<TlsFiles> {
  const keyPath = path.join(dir, 'localhost.key');
  const certPath = path.join(dir, 'localhost.crt');
  try {
    return { key: await readFile(keyPath, 'utf8'), cert: await readFile(certPath, 'utf8') };
  } catch {
    const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
      keyType: 'ec',
      curve: 'P-256',
      algorithm: 'sha256',
      notAfterDate: new Date(Date.now() + 365 * 24 * 3600 * 1000),
      extensions: [
        { name: 'basicConstraints', cA: false },
        { name: 'extKeyUsage', serverAuth: true },
        {
          name: 'subjectAltName',
          altNames: [
            { type: 2, value: 'localhost' },
            { type: 7, ip: '127.0.0.1' },
            { type: 7, ip: '::1' },
          ],
        },
      ],
    });
    await mkdir(dir, { recursive: true });
    await writeFile(keyPath, pems.private, { mode: 0o600 });
    await writeFile(certPath, pems.cert);
    return { key: pems.private, cert: pems.cert };
  }
}
