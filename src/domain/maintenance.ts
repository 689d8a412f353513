import type { SettingsRepository } from './ports.ts';

// On when the configuration says so, or when an operator turned it on with the CLI. One
// instance reads the setting on every request, so the next one sees it; many instances read it
// at most once per `cacheMs` each, so that a status probe does not cost a database round trip.
export class Maintenance {
  readonly #settings: SettingsRepository;
  readonly #fromConfig: boolean;
  readonly retryAfterS: number;
  readonly #cacheMs: number;
  #read: { at: number; on: Promise<boolean> } | undefined;

  constructor(settings: SettingsRepository, fromConfig: boolean, retryAfterS: number, cacheMs = 0) {
    this.#settings = settings;
    this.#fromConfig = fromConfig;
    this.retryAfterS = retryAfterS;
    this.#cacheMs = cacheMs;
  }

  async isOn(): Promise<boolean> {
    if (this.#fromConfig) return true;
    const now = Date.now();
    if (!this.#read || now - this.#read.at >= this.#cacheMs) {
      this.#read = { at: now, on: this.#settings.get('maintenance').then((v) => v === 'on') };
      this.#read.on.catch(() => (this.#read = undefined));
    }
    return this.#read.on;
  }

  async set(on: boolean): Promise<void> {
    if (on) await this.#settings.set('maintenance', 'on');
    else await this.#settings.delete('maintenance');
    this.#read = undefined;
  }
}
