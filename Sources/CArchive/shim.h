#ifndef SLEEPLEDGER_CARCHIVE_SHIM_H
#define SLEEPLEDGER_CARCHIVE_SHIM_H
#include <archive.h>
#include <archive_entry.h>
#endif
