/* SPDX-License-Identifier: MIT */
/* NFSv4 operation names (RFC 7530, 8881, 7862), COMPOUND's and CB_COMPOUND's. */
#include "formats/nfs.h"

static const char *const op_names[] = {
    [3] = "ACCESS",
    [4] = "CLOSE",
    [5] = "COMMIT",
    [6] = "CREATE",
    [7] = "DELEGPURGE",
    [8] = "DELEGRETURN",
    [9] = "GETATTR",
    [10] = "GETFH",
    [11] = "LINK",
    [12] = "LOCK",
    [13] = "LOCKT",
    [14] = "LOCKU",
    [15] = "LOOKUP",
    [16] = "LOOKUPP",
    [17] = "NVERIFY",
    [18] = "OPEN",
    [19] = "OPENATTR",
    [20] = "OPEN_CONFIRM",
    [21] = "OPEN_DOWNGRADE",
    [22] = "PUTFH",
    [23] = "PUTPUBFH",
    [24] = "PUTROOTFH",
    [25] = "READ",
    [26] = "READDIR",
    [27] = "READLINK",
    [28] = "REMOVE",
    [29] = "RENAME",
    [30] = "RENEW",
    [31] = "RESTOREFH",
    [32] = "SAVEFH",
    [33] = "SECINFO",
    [34] = "SETATTR",
    [35] = "SETCLIENTID",
    [36] = "SETCLIENTID_CONFIRM",
    [37] = "VERIFY",
    [38] = "WRITE",
    [39] = "RELEASE_LOCKOWNER",
    [40] = "BACKCHANNEL_CTL",
    [41] = "BIND_CONN_TO_SESSION",
    [42] = "EXCHANGE_ID",
    [43] = "CREATE_SESSION",
    [44] = "DESTROY_SESSION",
    [45] = "FREE_STATEID",
    [46] = "GET_DIR_DELEGATION",
    [47] = "GETDEVICEINFO",
    [48] = "GETDEVICELIST",
    [49] = "LAYOUTCOMMIT",
    [50] = "LAYOUTGET",
    [51] = "LAYOUTRETURN",
    [52] = "SECINFO_NO_NAME",
    [53] = "SEQUENCE",
    [54] = "SET_SSV",
    [55] = "TEST_STATEID",
    [56] = "WANT_DELEGATION",
    [57] = "DESTROY_CLIENTID",
    [58] = "RECLAIM_COMPLETE",
    [59] = "ALLOCATE",
    [60] = "COPY",
    [61] = "COPY_NOTIFY",
    [62] = "DEALLOCATE",
    [63] = "IO_ADVISE",
    [64] = "LAYOUTERROR",
    [65] = "LAYOUTSTATS",
    [66] = "OFFLOAD_CANCEL",
    [67] = "OFFLOAD_STATUS",
    [68] = "READ_PLUS",
    [69] = "SEEK",
    [70] = "WRITE_SAME",
    [71] = "CLONE",
    [72] = "GETXATTR",
    [73] = "SETXATTR",
    [74] = "LISTXATTRS",
    [75] = "REMOVEXATTR",
};

static const char *const cb_op_names[] = {
    [3] = "CB_GETATTR",
    [4] = "CB_RECALL",
    [5] = "CB_LAYOUTRECALL",
    [6] = "CB_NOTIFY",
    [7] = "CB_PUSH_DELEG",
    [8] = "CB_RECALL_ANY",
    [9] = "CB_RECALLABLE_OBJ_AVAIL",
    [10] = "CB_RECALL_SLOT",
    [11] = "CB_SEQUENCE",
    [12] = "CB_WANTS_CANCELLED",
    [13] = "CB_NOTIFY_LOCK",
    [14] = "CB_NOTIFY_DEVICEID",
    [15] = "CB_OFFLOAD",
};

const char *nfs4_op_name(uint32_t op)
{
	if (op == OP4_ILLEGAL)
		return "ILLEGAL";
	return op < sizeof(op_names) / sizeof(op_names[0]) ? op_names[op] : NULL;
}

const char *nfs4_cb_op_name(uint32_t op)
{
	return op < sizeof(cb_op_names) / sizeof(cb_op_names[0]) ? cb_op_names[op] : NULL;
}
