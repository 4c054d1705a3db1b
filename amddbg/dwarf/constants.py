"""DWARF 5 constants used by the readers (values from the DWARF 5 standard, section 7, and
LLVM's Dwarf.def for the DW_AT_LLVM_* vendor codes). Plain module-level ints for fast comparison."""

from __future__ import annotations

# unit types
DW_UT_compile, DW_UT_type, DW_UT_partial, DW_UT_skeleton, DW_UT_split_compile, DW_UT_split_type = range(1, 7)

TAGS = {
    0x01: "array_type", 0x02: "class_type", 0x03: "entry_point", 0x04: "enumeration_type",
    0x05: "formal_parameter", 0x08: "imported_declaration", 0x0A: "label", 0x0B: "lexical_block",
    0x0D: "member", 0x0F: "pointer_type", 0x10: "reference_type", 0x11: "compile_unit",
    0x12: "string_type", 0x13: "structure_type", 0x15: "subroutine_type", 0x16: "typedef",
    0x17: "union_type", 0x18: "unspecified_parameters", 0x19: "variant", 0x1A: "common_block",
    0x1B: "common_inclusion", 0x1C: "inheritance", 0x1D: "inlined_subroutine", 0x1E: "module",
    0x1F: "ptr_to_member_type", 0x20: "set_type", 0x21: "subrange_type", 0x22: "with_stmt",
    0x23: "access_declaration", 0x24: "base_type", 0x25: "catch_block", 0x26: "const_type",
    0x27: "constant", 0x28: "enumerator", 0x29: "file_type", 0x2A: "friend", 0x2B: "namelist",
    0x2C: "namelist_item", 0x2D: "packed_type", 0x2E: "subprogram", 0x2F: "template_type_parameter",
    0x30: "template_value_parameter", 0x31: "thrown_type", 0x32: "try_block", 0x33: "variant_part",
    0x34: "variable", 0x35: "volatile_type", 0x36: "dwarf_procedure", 0x37: "restrict_type",
    0x38: "interface_type", 0x39: "namespace", 0x3A: "imported_module", 0x3B: "unspecified_type",
    0x3C: "partial_unit", 0x3D: "imported_unit", 0x3F: "condition", 0x40: "shared_type",
    0x41: "type_unit", 0x42: "rvalue_reference_type", 0x43: "template_alias", 0x44: "coarray_type",
    0x45: "generic_subrange", 0x46: "dynamic_type", 0x47: "atomic_type", 0x48: "call_site",
    0x49: "call_site_parameter", 0x4A: "skeleton_unit", 0x4B: "immutable_type", 0x4106: "GNU_template_template_param",
    0x4107: "GNU_template_parameter_pack", 0x4108: "GNU_formal_parameter_pack",
    0x4109: "GNU_call_site", 0x410A: "GNU_call_site_parameter",
}
for _v, _n in TAGS.items():
    globals()["DW_TAG_" + _n] = _v


def tag_name(tag: int) -> str:
    n = TAGS.get(tag)
    return f"DW_TAG_{n}" if n else f"DW_TAG_{tag:#x}"


ATTRS = {
    0x01: "sibling", 0x02: "location", 0x03: "name", 0x09: "ordering", 0x0B: "byte_size",
    0x0C: "bit_offset", 0x0D: "bit_size", 0x10: "stmt_list", 0x11: "low_pc", 0x12: "high_pc",
    0x13: "language", 0x15: "discr", 0x16: "discr_value", 0x17: "visibility", 0x18: "import",
    0x19: "string_length", 0x1A: "common_reference", 0x1B: "comp_dir", 0x1C: "const_value",
    0x1D: "containing_type", 0x1E: "default_value", 0x20: "inline", 0x21: "is_optional",
    0x22: "lower_bound", 0x25: "producer", 0x27: "prototyped", 0x2A: "return_addr", 0x2C: "start_scope",
    0x2E: "bit_stride", 0x2F: "upper_bound", 0x31: "abstract_origin", 0x32: "accessibility",
    0x33: "address_class", 0x34: "artificial", 0x35: "base_types", 0x36: "calling_convention",
    0x37: "count", 0x38: "data_member_location", 0x39: "decl_column", 0x3A: "decl_file",
    0x3B: "decl_line", 0x3C: "declaration", 0x3D: "discr_list", 0x3E: "encoding", 0x3F: "external",
    0x40: "frame_base", 0x41: "friend", 0x42: "identifier_case", 0x43: "macro_info",
    0x44: "namelist_item", 0x45: "priority", 0x46: "segment", 0x47: "specification",
    0x48: "static_link", 0x49: "type", 0x4A: "use_location", 0x4B: "variable_parameter",
    0x4C: "virtuality", 0x4D: "vtable_elem_location", 0x4E: "allocated", 0x4F: "associated",
    0x50: "data_location", 0x51: "byte_stride", 0x52: "entry_pc", 0x53: "use_UTF8",
    0x54: "extension", 0x55: "ranges", 0x56: "trampoline", 0x57: "call_column", 0x58: "call_file",
    0x59: "call_line", 0x5A: "description", 0x5B: "binary_scale", 0x5C: "decimal_scale",
    0x5D: "small", 0x5E: "decimal_sign", 0x5F: "digit_count", 0x60: "picture_string",
    0x61: "mutable", 0x62: "threads_scaled", 0x63: "explicit", 0x64: "object_pointer",
    0x65: "endianity", 0x66: "elemental", 0x67: "pure", 0x68: "recursive", 0x69: "signature",
    0x6A: "main_subprogram", 0x6B: "data_bit_offset", 0x6C: "const_expr", 0x6D: "enum_class",
    0x6E: "linkage_name", 0x6F: "string_length_bit_size", 0x70: "string_length_byte_size",
    0x71: "rank", 0x72: "str_offsets_base", 0x73: "addr_base", 0x74: "rnglists_base",
    0x76: "dwo_name", 0x77: "reference", 0x78: "rvalue_reference", 0x79: "macros",
    0x7A: "call_all_calls", 0x7B: "call_all_source_calls", 0x7C: "call_all_tail_calls",
    0x7D: "call_return_pc", 0x7E: "call_value", 0x7F: "call_origin", 0x80: "call_parameter",
    0x81: "call_pc", 0x82: "call_tail_call", 0x83: "call_target", 0x84: "call_target_clobbered",
    0x85: "call_data_location", 0x86: "call_data_value", 0x87: "noreturn", 0x88: "alignment",
    0x89: "export_symbols", 0x8A: "deleted", 0x8B: "defaulted", 0x8C: "loclists_base",
    0x2007: "MIPS_linkage_name", 0x2116: "GNU_discriminator", 0x2131: "GNU_pubnames",
    0x2133: "GNU_addr_base", 0x3E00: "LLVM_include_path", 0x3E01: "LLVM_config_macros",
    0x3E02: "LLVM_sysroot", 0x3E03: "LLVM_tag_offset", 0x3E04: "LLVM_ptrauth_key",
    0x3E05: "LLVM_ptrauth_address_discriminated", 0x3E06: "LLVM_ptrauth_extra_discriminator",
    0x3E07: "LLVM_apinotes", 0x3E08: "LLVM_ptrauth_isa_pointer",
    0x3E09: "LLVM_ptrauth_authenticates_null_values", 0x3E0A: "LLVM_ptrauth_authentication_mode",
    0x3E0B: "LLVM_num_extra_inhabitants", 0x3E0C: "LLVM_stmt_sequence", 0x3E0D: "LLVM_coro_suspend_idx",
    0x3E0F: "LLVM_memory_space", 0x3E10: "LLVM_address_space", 0x3E11: "LLVM_lanes",
    0x3E12: "LLVM_lane_pc", 0x3E13: "LLVM_vector_size",
    0x3FE1: "APPLE_optimized", 0x3FE9: "APPLE_sdk",
}
for _v, _n in ATTRS.items():
    globals()["DW_AT_" + _n] = _v
# Old AMD-fork lane attributes that share codes with upstream pointer-auth attributes (0x3e08..0x3e0c).
AMD_LEGACY_ATTRS = {0x3E08: "LLVM_active_lane", 0x3E09: "LLVM_augmentation", 0x3E0A: "LLVM_lanes",
                    0x3E0B: "LLVM_lane_pc", 0x3E0C: "LLVM_vector_size"}


def attr_name(attr: int) -> str:
    n = ATTRS.get(attr)
    return f"DW_AT_{n}" if n else f"DW_AT_{attr:#x}"


FORMS = {
    0x01: "addr", 0x03: "block2", 0x04: "block4", 0x05: "data2", 0x06: "data4", 0x07: "data8",
    0x08: "string", 0x09: "block", 0x0A: "block1", 0x0B: "data1", 0x0C: "flag", 0x0D: "sdata",
    0x0E: "strp", 0x0F: "udata", 0x10: "ref_addr", 0x11: "ref1", 0x12: "ref2", 0x13: "ref4",
    0x14: "ref8", 0x15: "ref_udata", 0x16: "indirect", 0x17: "sec_offset", 0x18: "exprloc",
    0x19: "flag_present", 0x1A: "strx", 0x1B: "addrx", 0x1C: "ref_sup4", 0x1D: "strp_sup",
    0x1E: "data16", 0x1F: "line_strp", 0x20: "ref_sig8", 0x21: "implicit_const", 0x22: "loclistx",
    0x23: "rnglistx", 0x24: "ref_sup8", 0x25: "strx1", 0x26: "strx2", 0x27: "strx3", 0x28: "strx4",
    0x29: "addrx1", 0x2A: "addrx2", 0x2B: "addrx3", 0x2C: "addrx4",
    0x1F01: "GNU_addr_index", 0x1F02: "GNU_str_index", 0x1F20: "GNU_ref_alt", 0x1F21: "GNU_strp_alt",
}
for _v, _n in FORMS.items():
    globals()["DW_FORM_" + _n] = _v

# line programs
DW_LNS_copy, DW_LNS_advance_pc, DW_LNS_advance_line, DW_LNS_set_file, DW_LNS_set_column = 1, 2, 3, 4, 5
DW_LNS_negate_stmt, DW_LNS_set_basic_block, DW_LNS_const_add_pc = 6, 7, 8
DW_LNS_fixed_advance_pc, DW_LNS_set_prologue_end, DW_LNS_set_epilogue_begin, DW_LNS_set_isa = 9, 10, 11, 12
DW_LNE_end_sequence, DW_LNE_set_address, DW_LNE_define_file, DW_LNE_set_discriminator = 1, 2, 3, 4
DW_LNCT_path, DW_LNCT_directory_index, DW_LNCT_timestamp, DW_LNCT_size, DW_LNCT_MD5 = 1, 2, 3, 4, 5

# range / location lists
DW_RLE_end_of_list, DW_RLE_base_addressx, DW_RLE_startx_endx, DW_RLE_startx_length = 0, 1, 2, 3
DW_RLE_offset_pair, DW_RLE_base_address, DW_RLE_start_end, DW_RLE_start_length = 4, 5, 6, 7
DW_LLE_end_of_list, DW_LLE_base_addressx, DW_LLE_startx_endx, DW_LLE_startx_length = 0, 1, 2, 3
DW_LLE_offset_pair, DW_LLE_default_location, DW_LLE_base_address = 4, 5, 6
DW_LLE_start_end, DW_LLE_start_length, DW_LLE_GNU_view_pair = 7, 8, 9

# base type encodings
DW_ATE = {0x1: "address", 0x2: "boolean", 0x3: "complex_float", 0x4: "float", 0x5: "signed",
          0x6: "signed_char", 0x7: "unsigned", 0x8: "unsigned_char", 0x9: "imaginary_float",
          0xA: "packed_decimal", 0xB: "numeric_string", 0xC: "edited", 0xD: "signed_fixed",
          0xE: "unsigned_fixed", 0xF: "decimal_float", 0x10: "UTF", 0x11: "UCS", 0x12: "ASCII"}
for _v, _n in DW_ATE.items():
    globals()["DW_ATE_" + _n] = _v

DW_INL_inlined = 1
