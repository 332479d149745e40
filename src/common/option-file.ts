import { readFileSync } from 'node:fs';
import { InvalidArgumentError } from './errors.js';

/** A file an option names (a token, a certificate, a prompt), read; one that cannot be read says which option named it. */
export function readOptionFile(flag: string, file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new InvalidArgumentError(
      `${flag} ${file}: ${code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : String(error)}`,
    );
  }
}
