# SPDX-License-Identifier: MIT
# cmake -DIOTAPE=BINARY -DDIR=BUILD_DIR -P docs.cmake: the man pages (DIR/man/*.1.gz) and the
# bash completion (DIR/completion/iotape), written by the iotape just built from each command's
# own text (cli/doc.h), so they cannot say something its help does not. The pages of commands
# that no longer exist go with the old directory.
file(REMOVE_RECURSE ${DIR}/man)
file(MAKE_DIRECTORY ${DIR}/man ${DIR}/completion)
execute_process(COMMAND ${IOTAPE} help --man-dir ${DIR}/man RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
	message(FATAL_ERROR "iotape help --man-dir failed (${rc})")
endif()
execute_process(COMMAND ${IOTAPE} help --completion OUTPUT_FILE ${DIR}/completion/iotape.new
	RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
	message(FATAL_ERROR "iotape help --completion failed (${rc})")
endif()
file(RENAME ${DIR}/completion/iotape.new ${DIR}/completion/iotape)
