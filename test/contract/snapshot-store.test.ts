// The snapshot store port: what the engine relies on, for every adapter (one today: files in the data folder).
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { crc32 } from 'node:zlib';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileSnapshotStore } from '../../shared/storage/files/file-snapshot-store.js';
import { mmapAddon, releaseFreeMemory } from '../../shared/native/mmap-addon.js';
import type { SnapshotStore } from '../../shared/storage/ports/snapshot-store.js';

const files = (map: boolean) => () => {
  const dir = join(mkdtempSync(join(tmpdir(), 'quarry-snapshot-store-')), 'snapshots');
  return { store: new FileSnapshotStore(dir, 'test', map), dir };
};

const adapters: [string, () => { store: SnapshotStore; dir: string }][] = [
  ['files, memory-mapped', files(true)],
  ['files, read into memory', files(false)],
];

it('the memory-map addon was built by npm ci (native/mmap): without it snapshots are read, slower', () => {
  expect(mmapAddon()).not.toBeNull();
});

it('the addon gives malloc\'s free pages back on request (releaseFreeMemory), answering whether it gave any', () => {
  // The engine calls it after loading an index from the store; without the function that call would throw.
  expect(typeof releaseFreeMemory()).toBe('boolean');
});

describe.each(adapters)('snapshot store: %s', (_name, make) => {
  it('reads back what was written, null for an index without one, per index', async () => {
    const { store } = make();
    expect(await store.read(1)).toBeNull();
    await store.write(1, [Buffer.from('ab'), new Uint8Array([0, 255]), Buffer.from('cd')]);
    await store.write(2, [Buffer.from('other')]);
    expect(Buffer.from((await store.read(1))!.bytes)).toEqual(Buffer.concat([Buffer.from('ab'), Buffer.from([0, 255]), Buffer.from('cd')]));
    expect(Buffer.from((await store.read(2))!.bytes).toString()).toBe('other');
    expect(store.scope).toBe('test');
  });

  it('a write replaces the previous snapshot whole; remove forgets it, twice is fine', async () => {
    const { store } = make();
    await store.write(7, [Buffer.alloc(100_000, 1)]);
    await store.write(7, [Buffer.from('short')]);
    expect(Buffer.from((await store.read(7))!.bytes).toString()).toBe('short');
    await store.remove(7);
    await store.remove(7);
    expect(await store.read(7)).toBeNull();
  });

  it('the bytes read are the caller\'s: writing to them changes neither the file nor a later read; a replaced or removed snapshot leaves them as they were', async () => {
    const { store, dir } = make();
    await store.write(4, [Buffer.from('first version')]);
    const bytes = (await store.read(4))!.bytes;
    bytes[0] = 'F'.charCodeAt(0);
    expect(readFileSync(join(dir, 'index-4.snapshot'), 'utf8')).toBe('first version');
    expect(Buffer.from((await store.read(4))!.bytes).toString()).toBe('first version');
    await store.write(4, [Buffer.from('second')]);
    await store.remove(4);
    expect(Buffer.from(bytes).toString()).toBe('First version');
  });

  it('with checksumFrom, the checksum is the CRC-32 of the bytes read from there on, even when a newer snapshot replaced the file meanwhile', async () => {
    const { store } = make();
    const first = Buffer.alloc(3 << 20);
    for (let i = 0; i < first.length; i++) first[i] = (i * 31 + (i >> 9)) & 255;
    await store.write(5, [first]);
    const got = (await store.read(5, 24))!;
    await store.write(5, [Buffer.from('a newer, shorter snapshot')]);
    expect(await got.checksum).toBe(crc32(first.subarray(24)));
    expect(Buffer.from(got.bytes).equals(first)).toBe(true);
    expect((await store.read(5))!.checksum).toBeNull();
    expect(await (await store.read(5, 1000))!.checksum).toBe(crc32(Buffer.alloc(0)));
  });

  it('with a seal, the first chunk is what the seal makes of the CRC-32 of every byte after it', async () => {
    const { store } = make();
    const rest = Buffer.alloc((9 << 20) + 5);
    for (let i = 0; i < rest.length; i++) rest[i] = (i * 7 + (i >> 11)) & 255;
    const head = Buffer.alloc(8);
    let sealedWith: number | null = null;
    await store.write(6, [head, rest.subarray(0, 1000), rest.subarray(1000)], (crc) => {
      sealedWith = crc;
      const sealed = Buffer.alloc(8);
      sealed.writeUInt32LE(crc >>> 0, 0);
      sealed.write('head', 4);
      return sealed;
    });
    expect(sealedWith).toBe(crc32(rest));
    const got = Buffer.from((await store.read(6))!.bytes);
    expect(got.readUInt32LE(0)).toBe(crc32(rest));
    expect(got.subarray(4, 8).toString()).toBe('head');
    expect(got.subarray(8).equals(rest)).toBe(true);
    // A seal that changes the head's length is refused, and the previous snapshot stays.
    await expect(store.write(6, [head, Buffer.from('x')], () => Buffer.alloc(9))).rejects.toThrow(/length/);
    expect(Buffer.from((await store.read(6))!.bytes).subarray(8).equals(rest)).toBe(true);
  });

  it('concurrent writes of one index leave one of them whole, never a mix', async () => {
    const { store } = make();
    const a = Buffer.alloc(1 << 20, 'a');
    const b = Buffer.alloc(1 << 19, 'b');
    await Promise.all([store.write(3, [a]), store.write(3, [b]), store.write(3, [a])]);
    const got = Buffer.from((await store.read(3))!.bytes);
    expect(got.equals(a) || got.equals(b)).toBe(true);
  });

  it('files: leaves no temporary files, and clears those of processes that are gone when opened', async () => {
    const { store, dir } = make();
    await store.write(1, [Buffer.from('x')]);
    expect(readdirSync(dir)).toEqual(['index-1.snapshot']);
    writeFileSync(join(dir, `index-1.snapshot.${2 ** 22 + 3}.9.tmp`), 'partial');
    writeFileSync(join(dir, `index-1.snapshot.${process.pid}.999.tmp`), 'a write of a live process');
    const reopened = new FileSnapshotStore(dir, 'test');
    expect(Buffer.from((await reopened.read(1))!.bytes).toString()).toBe('x');
    expect(readdirSync(dir).sort()).toEqual(['index-1.snapshot', `index-1.snapshot.${process.pid}.999.tmp`]);
  });
});
