#ifndef SLEEPLEDGER_CLIBPQ_SHIM_H
#define SLEEPLEDGER_CLIBPQ_SHIM_H
#include <libpq-fe.h>

/* libpq's PG_DIAG_* fields are character macros ('C', 'M', ...), which Swift
   cannot import. Re-export them as constants. */
static const int CLibPQ_DIAG_SEVERITY = PG_DIAG_SEVERITY;
static const int CLibPQ_DIAG_SQLSTATE = PG_DIAG_SQLSTATE;
static const int CLibPQ_DIAG_MESSAGE_PRIMARY = PG_DIAG_MESSAGE_PRIMARY;
static const int CLibPQ_DIAG_MESSAGE_DETAIL = PG_DIAG_MESSAGE_DETAIL;
static const int CLibPQ_DIAG_MESSAGE_HINT = PG_DIAG_MESSAGE_HINT;
static const int CLibPQ_DIAG_CONSTRAINT_NAME = PG_DIAG_CONSTRAINT_NAME;
static const int CLibPQ_DIAG_TABLE_NAME = PG_DIAG_TABLE_NAME;
static const int CLibPQ_DIAG_COLUMN_NAME = PG_DIAG_COLUMN_NAME;
#endif
