/* SPDX-License-Identifier: MIT */
/* Names for block actions and flags. */
#include "formats/blkevent.h"

#include <stddef.h>

static const struct {
	const char *letter;
	const char *name;
} action_names[BLK_A_MAX] = {
    [BLK_A_NONE] = {"?", "none"},
    [BLK_A_QUEUE] = {"Q", "queue"},
    [BLK_A_BACKMERGE] = {"M", "backmerge"},
    [BLK_A_FRONTMERGE] = {"F", "frontmerge"},
    [BLK_A_GETRQ] = {"G", "getrq"},
    [BLK_A_SLEEPRQ] = {"S", "sleeprq"},
    [BLK_A_REQUEUE] = {"R", "requeue"},
    [BLK_A_ISSUE] = {"D", "issue"},
    [BLK_A_COMPLETE] = {"C", "complete"},
    [BLK_A_PLUG] = {"P", "plug"},
    [BLK_A_UNPLUG_IO] = {"U", "unplug"},
    [BLK_A_UNPLUG_TIMER] = {"UT", "unplug_timer"},
    [BLK_A_INSERT] = {"I", "insert"},
    [BLK_A_SPLIT] = {"X", "split"},
    [BLK_A_BOUNCE] = {"B", "bounce"},
    [BLK_A_REMAP] = {"A", "remap"},
    [BLK_A_ABORT] = {"K", "abort"},
    [BLK_A_DRV_DATA] = {"m", "drv_data"},
    [BLK_A_ZONE_PLUG] = {"ZP", "zone_plug"},
    [BLK_A_ZONE_UNPLUG] = {"ZU", "zone_unplug"},
};

const char *blk_action_letter(unsigned action)
{
	return action < BLK_A_MAX ? action_names[action].letter : "?";
}

const char *blk_action_name(unsigned action)
{
	return action < BLK_A_MAX ? action_names[action].name : "unknown";
}

const char *blk_rwbs(uint64_t flags, uint32_t bytes, char *buf)
{
	size_t i = 0;

	if (flags & BLK_F_FLUSH)
		buf[i++] = 'F';
	if (flags & BLK_F_DISCARD)
		buf[i++] = 'D';
	else if (flags & BLK_F_WRITE)
		buf[i++] = 'W';
	else if (bytes)
		buf[i++] = 'R';
	else
		buf[i++] = 'N';
	if (flags & BLK_F_FUA)
		buf[i++] = 'F';
	if (flags & BLK_F_AHEAD)
		buf[i++] = 'A';
	if (flags & BLK_F_SYNC)
		buf[i++] = 'S';
	if (flags & BLK_F_META)
		buf[i++] = 'M';
	buf[i] = '\0';
	return buf;
}
