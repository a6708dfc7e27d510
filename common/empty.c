/* SPDX-License-Identifier: MIT */
/* Keeps a folder library non-empty while the folder has no sources of its own. */
typedef int iotape_empty_translation_unit;
