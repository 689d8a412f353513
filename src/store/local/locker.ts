// The embedded engine's Locker: one process, so exclusion in memory is exclusion everywhere.
import type { Locker } from '../../domain/ports.ts';
import { ProcessLocker } from '../locker.ts';

export class LocalLocker extends ProcessLocker implements Locker {}
