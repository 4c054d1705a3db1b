/* An independent AMDGPU split-core generator, for tests of amddbg's reader.
 *
 * Written from the published structure definitions (Linux UAPI kfd_ioctl.h 1.15+, ROCdbgapi's note
 * header, ROCr's amd_queue_t, HSA's kernel dispatch packet, glibc's r_debug/link_map) and the context
 * save area facts of ROCdbgapi's architecture.cpp as summarised in shared/reference/core-file-format.md.
 * It shares no code with amddbg's writer: the bytes it produces check the reader independently.
 *
 * usage: gen_core OUT.gpu gfx90a|gfx1100   -> writes the core, prints the expected values as JSON
 *
 * Deliberate differences from amddbg's writer: agent entries are 128 bytes (the rocm-systems dbgapi
 * copy with capability2+pad), runtime info is padded to 24 bytes, the control stack carries an event
 * word, the wave area has a different placement, ROCr's log2 p_align and SHF-style p_flags are used,
 * and r_version is 10 with ttmp_setup = 1.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <link.h>

typedef uint64_t __u64;
typedef uint32_t __u32;

struct kfd_runtime_info { __u64 r_debug; __u32 runtime_state; __u32 ttmp_setup; };
struct kfd_dbg_device_info_entry {
  __u64 exception_status; __u64 lds_base; __u64 lds_limit; __u64 scratch_base; __u64 scratch_limit;
  __u64 gpuvm_base; __u64 gpuvm_limit; __u32 gpu_id; __u32 location_id; __u32 vendor_id; __u32 device_id;
  __u32 revision_id; __u32 subsystem_vendor_id; __u32 subsystem_device_id; __u32 fw_version;
  __u32 gfx_target_version; __u32 simd_count; __u32 max_waves_per_simd; __u32 array_count;
  __u32 simd_arrays_per_engine; __u32 num_xcc; __u32 capability; __u32 debug_prop;
  __u32 capability2; __u32 pad; /* rocm-systems dbgapi copy: 128 bytes */
};
struct kfd_queue_snapshot_entry {
  __u64 exception_status; __u64 ring_base_address; __u64 write_pointer_address; __u64 read_pointer_address;
  __u64 ctx_save_restore_address; __u32 queue_id; __u32 gpu_id; __u32 ring_size; __u32 queue_type;
  __u32 ctx_save_restore_area_size; __u32 reserved;
};
struct kfd_context_save_area_header {
  struct { __u32 control_stack_offset; __u32 control_stack_size; __u32 wave_state_offset; __u32 wave_state_size; } wave_state;
  __u32 debug_offset; __u32 debug_size; __u64 err_payload_addr; __u32 err_event_id; __u32 reserved1;
};
struct kfd_note_header_t {
  uint32_t kfd_version_major; uint32_t kfd_version_minor; uint64_t runtime_info_size;
  uint32_t agent_entry_count; uint32_t agent_entry_size; uint32_t queue_entry_count; uint32_t queue_entry_size;
};
typedef struct { uint64_t handle; } hsa_signal_t;
typedef struct hsa_queue_s { uint32_t type; uint32_t features; void *base_address; hsa_signal_t doorbell_signal;
  uint32_t size; uint32_t reserved1; uint64_t id; } hsa_queue_t;
typedef struct __attribute__((aligned(64))) amd_queue_s {
  hsa_queue_t hsa_queue; uint32_t caps; uint32_t reserved1[3]; volatile uint64_t write_dispatch_id;
  uint32_t group_segment_aperture_base_hi; uint32_t private_segment_aperture_base_hi; uint32_t max_cu_id;
  uint32_t max_wave_id; volatile uint64_t max_legacy_doorbell_dispatch_id_plus_1;
  volatile uint32_t legacy_doorbell_lock; uint32_t reserved2[9]; volatile uint64_t read_dispatch_id;
  uint32_t read_dispatch_id_field_base_byte_offset; uint32_t compute_tmpring_size;
  uint32_t scratch_resource_descriptor[4]; uint64_t scratch_backing_memory_location;
  uint64_t scratch_backing_memory_byte_size; uint32_t scratch_wave64_lane_byte_size; uint32_t queue_properties;
  volatile uint64_t scratch_last_used_index; hsa_signal_t queue_inactive_signal; uint32_t reserved4[2];
  volatile uint64_t alt_scratch_last_used_index; uint64_t alt_scratch_backing_memory_location;
  uint64_t alt_scratch_backing_memory_byte_size; uint32_t alt_scratch_dispatch_limit_x;
  uint32_t alt_scratch_dispatch_limit_y; uint32_t alt_scratch_dispatch_limit_z;
  uint32_t alt_scratch_wave64_lane_byte_size; uint32_t alt_compute_tmpring_size; uint32_t reserved5;
} amd_queue_t;
typedef struct hsa_kernel_dispatch_packet_s { uint16_t header; uint16_t setup; uint16_t workgroup_size_x;
  uint16_t workgroup_size_y; uint16_t workgroup_size_z; uint16_t reserved0; uint32_t grid_size_x;
  uint32_t grid_size_y; uint32_t grid_size_z; uint32_t private_segment_size; uint32_t group_segment_size;
  uint64_t kernel_object; void *kernarg_address; uint64_t reserved2; hsa_signal_t completion_signal;
} hsa_kernel_dispatch_packet_t;
struct kd { uint32_t group_segment_fixed_size; uint32_t private_segment_fixed_size; uint8_t reserved0[8];
  int64_t kernel_code_entry_byte_offset; uint8_t reserved1[20]; uint32_t compute_pgm_rsrc3;
  uint32_t compute_pgm_rsrc1; uint32_t compute_pgm_rsrc2; uint16_t kernel_code_properties; uint8_t reserved2[6]; };

/* ---- process image: a few segments ---------------------------------------------------------- */
struct seg { uint64_t vaddr; uint8_t *data; uint64_t size; };
static struct seg segs[16];
static int nsegs;
static uint8_t *seg_new(uint64_t vaddr, uint64_t size) {
  segs[nsegs].vaddr = vaddr; segs[nsegs].size = size; segs[nsegs].data = calloc(1, size);
  return segs[nsegs++].data;
}

#define HOST_PAGE 0x7f5500000000ull
#define RING_ADDR 0x7f5500010000ull
#define AQ_ADDR 0x7f5500020000ull
#define CO_ADDR 0x7f5500030000ull
#define KD_ADDR 0x7fc000001000ull
#define ENTRY_ADDR 0x7fc000001100ull
#define CSA_ADDR 0x7fd000000000ull
#define PARK_ADDR 0x7fd0ffff0000ull
#define RING_PACKETS 32
#define NWAVES 5
#define GPU_ID 0xbeef

static int arch_gfx11;
static int lanes;

static uint32_t sgpr_val(int w, int i) { return 0x50000000u + (uint32_t)w * 0x1000u + (uint32_t)i; }
static uint32_t vgpr_val(int w, int r, int l) { return 0x01000000u * (uint32_t)(w + 1) + (uint32_t)r * 0x100u + (uint32_t)l; }
static uint32_t acc_val(int w, int r, int l) { return 0xacc00000u + (uint32_t)w * 0x10000u + (uint32_t)r * 0x100u + (uint32_t)l; }

int main(int argc, char **argv) {
  if (argc != 3) { fprintf(stderr, "usage: gen_core OUT gfx90a|gfx1100\n"); return 2; }
  arch_gfx11 = strcmp(argv[2], "gfx1100") == 0;
  if (!arch_gfx11 && strcmp(argv[2], "gfx90a") != 0) { fprintf(stderr, "unknown arch\n"); return 2; }
  lanes = arch_gfx11 ? 32 : 64;

  /* host page: r_debug, one link_map, its URI; then the code object bytes */
  const char co_bytes[] = "\x7f" "ELF-not-really-a-code-object";
  uint8_t *hp = seg_new(HOST_PAGE, 4096);
  struct r_debug *rd = (struct r_debug *)hp;
  struct link_map *lm = (struct link_map *)(hp + 64);
  char *uri = (char *)(hp + 128);
  snprintf(uri, 256, "memory://777#offset=0x%llx&size=%zu", (unsigned long long)CO_ADDR, sizeof co_bytes);
  rd->r_version = 10; rd->r_state = RT_CONSISTENT; rd->r_map = (struct link_map *)(HOST_PAGE + 64);
  lm->l_addr = 0x7fc000000000ull; lm->l_name = (char *)(HOST_PAGE + 128); lm->l_next = 0; lm->l_prev = 0;
  memcpy(seg_new(CO_ADDR, sizeof co_bytes), co_bytes, sizeof co_bytes);

  /* queue: ring with two dispatch packets (ids 33 and 34 -> ring slots 1 and 2), amd_queue_t */
  uint8_t *ring = seg_new(RING_ADDR, RING_PACKETS * 64);
  for (int id = 33; id <= 34; id++) {
    hsa_kernel_dispatch_packet_t *p = (hsa_kernel_dispatch_packet_t *)(ring + (id % RING_PACKETS) * 64);
    p->header = 2; p->setup = 3; p->workgroup_size_x = 128; p->workgroup_size_y = 1; p->workgroup_size_z = 1;
    p->grid_size_x = 1024 * (id - 32); p->grid_size_y = 4; p->grid_size_z = 2;
    p->kernel_object = KD_ADDR; p->kernarg_address = (void *)0x7f5500099000ull;
  }
  amd_queue_t *aq = (amd_queue_t *)seg_new(AQ_ADDR, sizeof(amd_queue_t));
  aq->hsa_queue.size = RING_PACKETS; aq->read_dispatch_id = 33; aq->write_dispatch_id = 35;
  struct kd *kd = (struct kd *)seg_new(KD_ADDR, sizeof(struct kd));
  kd->kernel_code_entry_byte_offset = (int64_t)(ENTRY_ADDR - KD_ADDR);

  /* context save area: header, control stack, wave records laid downward */
  const uint64_t csa_size = 1 << 20;
  uint8_t *csa = seg_new(CSA_ADDR, csa_size);
  uint32_t cs[64]; int ncs = 0;
  cs[ncs++] = 0xc0001234; cs[ncs++] = 0xc0005678; /* the 2 PM4 packets */
  cs[ncs++] = 1u << 30; /* an event word, skipped by readers */
  /* waves 0,1 in workgroup (3,1,0) of dispatch 33; waves 2,3,4 in workgroup (0,2,1) of dispatch 34 */
  static const int wg_of[NWAVES][3] = {{3, 1, 0}, {3, 1, 0}, {0, 2, 1}, {0, 2, 1}, {0, 2, 1}};
  static const int first[NWAVES] = {1, 0, 1, 0, 0}, last[NWAVES] = {0, 1, 0, 0, 1};
  static const int wig[NWAVES] = {0, 1, 0, 1, 2}, pid[NWAVES] = {33, 33, 34, 34, 34};
  static const int trap[NWAVES] = {2, 0, 1, 0, 0}, stopped[NWAVES] = {1, 0, 1, 1, 0};
  const int vgprs = 8, accs = arch_gfx11 ? 0 : 8, sgprs = arch_gfx11 ? 128 : 32;
  const uint32_t lds_size = 1024;
  uint32_t rec_size[NWAVES];
  uint64_t top_off = csa_size - 4096; /* wave area ends below a 4 KiB debug area */
  uint64_t wave_end = top_off;
  for (int w = 0; w < NWAVES; w++) {
    if (first[w]) { /* one state per workgroup (two words on gfx10+) */
      if (arch_gfx11) {
        cs[ncs++] = (1u << 31) | (uint32_t)(vgprs / 8 - 1) | (lds_size / 512) << 10 | 1u << 24;
        cs[ncs++] = 0;
      } else {
        cs[ncs++] = (1u << 31) | (uint32_t)((vgprs + accs) / 8 - 1) | (uint32_t)((sgprs + 16) / 16 - 1) << 6 |
                    (lds_size / 512) << 9 | (uint32_t)(vgprs / 4 - 1) << 24;
      }
    }
    uint32_t word;
    if (arch_gfx11)
      word = (uint32_t)(w + 3) | (uint32_t)first[w] << 12 | 1u << 24 | (uint32_t)last[w] << 29;
    else
      word = (uint32_t)(w + 3) | 1u << 9 | (uint32_t)last[w] << 16 | (uint32_t)first[w] << 17;
    cs[ncs++] = word;

    uint64_t c = top_off - (arch_gfx11 ? 0 : 64); /* gfx9 family: 64-byte gap */
    uint64_t save = c;
    if (first[w]) { save -= lds_size; for (uint32_t i = 0; i < lds_size; i++) csa[save + i] = (uint8_t)(w * 7 + i); }
    uint32_t *tt = (uint32_t *)(csa + save - 64);
    uint32_t *hw = (uint32_t *)(csa + save - 128);
    uint32_t *sg = (uint32_t *)(csa + save - 128 - 4 * sgprs);
    uint32_t *acc = (uint32_t *)((uint8_t *)sg - 4 * lanes * accs);
    uint32_t *vg = (uint32_t *)((uint8_t *)acc - 4 * lanes * vgprs);
    uint64_t pc = ENTRY_ADDR + 0x40 + 8 * (uint64_t)w;
    uint64_t exec = arch_gfx11 ? 0xffff0000ull + (uint64_t)w : 0xf0f0f0f0f0f0f0f0ull + (uint64_t)w;
    tt[6] = (uint32_t)(pid[w] % RING_PACKETS) | (uint32_t)trap[w] << 25 | (uint32_t)stopped[w] << 30;
    tt[8] = (uint32_t)wg_of[w][0]; tt[9] = (uint32_t)wg_of[w][1]; tt[10] = (uint32_t)wg_of[w][2];
    tt[11] = (uint32_t)wig[w];
    if (stopped[w]) { /* both gfx90a and gfx11 (r_version 10) park stopped waves */
      tt[7] = (uint32_t)pc; tt[11] |= (uint32_t)((pc >> 32) & 0xffff) << 7;
      hw[1] = (uint32_t)PARK_ADDR; hw[2] = (uint32_t)(PARK_ADDR >> 32);
    } else {
      hw[1] = (uint32_t)pc; hw[2] = (uint32_t)(pc >> 32);
    }
    hw[0] = 0x3333;
    hw[3] = (uint32_t)exec; hw[4] = arch_gfx11 ? 0 : (uint32_t)(exec >> 32);
    hw[5] = 0x100 + (uint32_t)w;                                  /* STATUS */
    hw[6] = w == 0 ? 1u << 11 : 0;                                /* TRAPSTS: illegal instruction */
    hw[arch_gfx11 ? 8 : 9] = 0x200 + (uint32_t)w;                 /* MODE */
    for (int i = 0; i < sgprs; i++) sg[i] = sgpr_val(w, i);
    for (int r = 0; r < vgprs; r++) for (int l = 0; l < lanes; l++) vg[r * lanes + l] = vgpr_val(w, r, l);
    for (int r = 0; r < accs; r++) for (int l = 0; l < lanes; l++) acc[r * lanes + l] = acc_val(w, r, l);
    rec_size[w] = (uint32_t)(top_off - (uint64_t)((uint8_t *)vg - csa));
    top_off = (uint64_t)((uint8_t *)vg - csa);
  }
  uint64_t wave_begin = top_off;
  uint64_t cs_off = wave_begin - 4 * (uint64_t)ncs;
  memcpy(csa + cs_off, cs, 4 * (size_t)ncs);
  struct kfd_context_save_area_header *h = (struct kfd_context_save_area_header *)csa;
  h->wave_state.control_stack_offset = (uint32_t)cs_off;
  h->wave_state.control_stack_size = 4 * (uint32_t)ncs;
  h->wave_state.wave_state_offset = (uint32_t)wave_end;
  h->wave_state.wave_state_size = (uint32_t)(wave_end - wave_begin);
  h->debug_offset = (uint32_t)(csa_size - 4096); h->debug_size = 4096;

  /* the note */
  uint8_t desc[1024]; size_t dn = 0;
  uint64_t note_version = 1;
  memcpy(desc + dn, &note_version, 8); dn += 8;
  struct kfd_note_header_t nh = {1, 16, 24, 1, sizeof(struct kfd_dbg_device_info_entry), 1,
                                 sizeof(struct kfd_queue_snapshot_entry)};
  memcpy(desc + dn, &nh, sizeof nh); dn += sizeof nh;
  struct kfd_runtime_info ri = {HOST_PAGE, 1, 1};
  memset(desc + dn, 0, 24); memcpy(desc + dn, &ri, sizeof ri); dn += 24;
  struct kfd_dbg_device_info_entry ag; memset(&ag, 0, sizeof ag);
  ag.gpu_id = GPU_ID; ag.gfx_target_version = arch_gfx11 ? 110000 : 90010; ag.num_xcc = 1;
  ag.simd_count = 440; ag.max_waves_per_simd = 8; ag.array_count = 8; ag.simd_arrays_per_engine = 1;
  ag.exception_status = (1ull << (4 - 1)) | (1ull << (33 - 1)); /* ILLEGAL_INSTRUCTION, DEVICE_MEMORY_VIOLATION */
  ag.capability2 = 0xdead; /* a field newer than the reader's struct: ignored */
  /* what a debuggable board reports (kfd_sysfs.h bits): watch points, trap debug, launch override/mode,
     precise memory, HSA_CAP_TRAP_DEBUG_FIRMWARE_SUPPORTED; without the firmware bit dbgapi refuses */
  ag.capability = 0x80 | (2 << 8) | 0x8000 | 0x10000 | 0x20000 | 0x40000 | 0x20000000;
  ag.fw_version = arch_gfx11 ? 2250 : 78; ag.vendor_id = 0x1002; ag.device_id = arch_gfx11 ? 0x744C : 0x740C;
  ag.location_id = 0xC100; ag.debug_prop = arch_gfx11 ? (7 | 29 << 4) : (6 | 29 << 4 | 0x400);
  memcpy(desc + dn, &ag, sizeof ag); dn += sizeof ag;
  struct kfd_queue_snapshot_entry qe; memset(&qe, 0, sizeof qe);
  qe.exception_status = 1ull << (2 - 1); qe.ring_base_address = RING_ADDR;
  qe.write_pointer_address = AQ_ADDR + offsetof(amd_queue_t, write_dispatch_id);
  qe.read_pointer_address = AQ_ADDR + offsetof(amd_queue_t, read_dispatch_id);
  qe.ctx_save_restore_address = CSA_ADDR; qe.queue_id = 5; qe.gpu_id = GPU_ID; qe.ring_size = RING_PACKETS * 64;
  qe.queue_type = 2; qe.ctx_save_restore_area_size = (uint32_t)csa_size;
  memcpy(desc + dn, &qe, sizeof qe); dn += sizeof qe;

  /* ELF: header, NOTE + LOAD program headers, note record, segments at 16-byte aligned offsets */
  FILE *f = fopen(argv[1], "wb");
  if (!f) { perror(argv[1]); return 1; }
  int phnum = 1 + nsegs;
  uint64_t note_off = 64 + 56 * (uint64_t)phnum;
  uint64_t note_size = 12 + 8 + dn;
  uint64_t off = (note_off + note_size + 15) & ~15ull;
  uint8_t eh[64] = {0x7f, 'E', 'L', 'F', 2, 1, 1, 0x40, 0};
  uint16_t e_type = 4, e_machine = 0xe0, e_ehsize = 64, e_phentsize = 56, e_phnum = (uint16_t)phnum;
  uint32_t e_version = 1; uint64_t e_phoff = 64;
  memcpy(eh + 16, &e_type, 2); memcpy(eh + 18, &e_machine, 2); memcpy(eh + 20, &e_version, 4);
  memcpy(eh + 32, &e_phoff, 8); memcpy(eh + 52, &e_ehsize, 2); memcpy(eh + 54, &e_phentsize, 2);
  memcpy(eh + 56, &e_phnum, 2);
  fwrite(eh, 1, 64, f);
  uint32_t pt; uint32_t pf; uint64_t z = 0, al;
  pt = 4; pf = 0; al = 2;
  fwrite(&pt, 4, 1, f); fwrite(&pf, 4, 1, f); fwrite(&note_off, 8, 1, f); fwrite(&z, 8, 1, f); fwrite(&z, 8, 1, f);
  fwrite(&note_size, 8, 1, f); fwrite(&z, 8, 1, f); fwrite(&al, 8, 1, f);
  uint64_t offs[16];
  for (int i = 0; i < nsegs; i++) {
    offs[i] = off; off = (off + segs[i].size + 15) & ~15ull;
    pt = 1; pf = 2 | 1; al = 4; /* SHF_ALLOC|SHF_WRITE, log2 alignment, as ROCr writes them */
    fwrite(&pt, 4, 1, f); fwrite(&pf, 4, 1, f); fwrite(&offs[i], 8, 1, f); fwrite(&segs[i].vaddr, 8, 1, f);
    fwrite(&z, 8, 1, f); fwrite(&segs[i].size, 8, 1, f); fwrite(&segs[i].size, 8, 1, f); fwrite(&al, 8, 1, f);
  }
  uint32_t nhdr[3] = {7, (uint32_t)dn, 33};
  fwrite(nhdr, 4, 3, f); fwrite("AMDGPU\0\0", 1, 8, f); fwrite(desc, 1, dn, f);
  for (int i = 0; i < nsegs; i++) { fseek(f, (long)offs[i], SEEK_SET); fwrite(segs[i].data, 1, segs[i].size, f); }
  fclose(f);

  /* expected values */
  printf("{\"gpu_id\": %d, \"target\": \"%s\", \"queue_id\": 5, \"uri\": \"%s\", \"load_address\": %llu,\n",
         GPU_ID, argv[2], uri, 0x7fc000000000ull);
  printf(" \"code_object\": [");
  for (size_t i = 0; i < sizeof co_bytes; i++) printf("%s%u", i ? ", " : "", (unsigned char)co_bytes[i]);
  printf("],\n \"waves\": [\n");
  for (int w = 0; w < NWAVES; w++) {
    uint64_t pc = ENTRY_ADDR + 0x40 + 8 * (uint64_t)w;
    uint64_t exec = arch_gfx11 ? 0xffff0000ull + (uint64_t)w : 0xf0f0f0f0f0f0f0f0ull + (uint64_t)w;
    int nexp = arch_gfx11 ? 106 : sgprs - 6;
    printf("  {\"dispatch_id\": %d, \"grid\": [%d, 4, 2], \"workgroup\": [%d, %d, %d], \"wave_in_group\": %d, "
           "\"pc\": %llu, \"exec\": %llu, \"status\": %d, \"mode\": %d, \"trap_id\": %d, \"stopped\": %d, "
           "\"first\": %d, \"entry\": %llu, \"lds_seed\": %d,\n   \"sgprs\": [",
           pid[w], 1024 * (pid[w] - 32), wg_of[w][0], wg_of[w][1], wg_of[w][2], wig[w],
           (unsigned long long)pc, (unsigned long long)exec, 0x100 + w, 0x200 + w, trap[w], stopped[w], first[w],
           (unsigned long long)ENTRY_ADDR, first[w] ? w : (w < 2 ? 0 : 2));
    for (int i = 0; i < nexp; i++) printf("%s%u", i ? ", " : "", sgpr_val(w, i));
    printf("],\n   \"vgprs\": [");
    for (int r = 0; r < vgprs; r++) {
      printf("%s[", r ? ", " : "");
      for (int l = 0; l < lanes; l++) printf("%s%u", l ? ", " : "", vgpr_val(w, r, l));
      printf("]");
    }
    printf("],\n   \"accvgprs\": [");
    for (int r = 0; r < accs; r++) {
      printf("%s[", r ? ", " : "");
      for (int l = 0; l < lanes; l++) printf("%s%u", l ? ", " : "", acc_val(w, r, l));
      printf("]");
    }
    printf("], \"record_size\": %u}%s\n", rec_size[w], w + 1 < NWAVES ? "," : "");
  }
  printf(" ]}\n");
  return 0;
}
