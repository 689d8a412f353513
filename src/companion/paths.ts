// The local side of a tool's arguments, checked before any network call: the input files
// exist, are regular files and can be read; the output folder exists and is a folder.
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { CompanionError } from './errors.ts';

export interface InputFile {
  path: string;
  /** The last path segment: what the service is told the file is called. */
  name: string;
  size: number;
}

/** Absolute, with a leading ~ taken as the home folder (models write paths the way people do). */
export function absolute(p: string): string {
  const home = p === '~' || p.startsWith('~/') ? path.join(os.homedir(), p.slice(1)) : p;
  return path.resolve(home);
}

/** `argument` names the tool argument in messages, so the model knows which one to fix. */
export async function inputFile(given: string, argument: string): Promise<InputFile> {
  if (!given.trim()) throw new CompanionError('missing_argument', `${argument} is empty; give the path of a file.`, { argument });
  const p = absolute(given);
  let s;
  try {
    s = await stat(p);
  } catch (err) {
    throw fsError(err, argument, p, 'file_not_found', `No file at ${p} (${argument}). Check the path; an absolute path is safest.`);
  }
  if (s.isDirectory()) throw new CompanionError('not_a_file', `${p} (${argument}) is a folder; give the path of one file in it.`, { argument, path: p });
  if (!s.isFile()) throw new CompanionError('not_a_file', `${p} (${argument}) is not a regular file.`, { argument, path: p });
  try {
    await access(p, constants.R_OK);
  } catch (err) {
    throw fsError(err, argument, p, 'not_readable', `${p} (${argument}) cannot be read by the companion.`);
  }
  return { path: p, name: path.basename(p), size: s.size };
}

/** The folder outputs go to: output_dir if given (it must exist), else the input's own folder. */
export async function outputDir(given: string | undefined, beside: InputFile): Promise<string> {
  if (given === undefined || given.trim() === '') return path.dirname(beside.path);
  const p = absolute(given);
  let s;
  try {
    s = await stat(p);
  } catch (err) {
    throw fsError(err, 'output_dir', p, 'output_dir_not_found', `No folder at ${p} (output_dir). Give an existing folder, or leave output_dir out to save beside the input.`);
  }
  if (!s.isDirectory()) throw new CompanionError('output_dir_not_a_folder', `${p} (output_dir) is a file, not a folder.`, { argument: 'output_dir', path: p });
  try {
    await access(p, constants.W_OK);
  } catch (err) {
    throw fsError(err, 'output_dir', p, 'output_dir_not_writable', `The companion cannot write into ${p} (output_dir).`);
  }
  return p;
}

function fsError(err: unknown, argument: string, p: string, code: string, message: string): CompanionError {
  const e = err as NodeJS.ErrnoException;
  if (e.code === 'EACCES' || e.code === 'EPERM') return new CompanionError('permission_denied', `The companion may not use ${p} (${argument}): permission denied.`, { argument, path: p });
  if (e.code === 'ENOTDIR') return new CompanionError(code, `${p} (${argument}): a part of the path is a file, not a folder.`, { argument, path: p });
  return new CompanionError(code, message, { argument, path: p });
}
